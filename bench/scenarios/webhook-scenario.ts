import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { plantToJson, subscriptionId } from '@plant-store/core/adapter';
import { postgresStorage } from '@plant-store/storage-postgres';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import type { BenchContext } from '../lib/bench-context.js';
import type { BenchPostgres } from '../lib/bench-postgres.js';
import { runLoad } from '../lib/load.js';
import type { ServerConfig } from '../lib/server-launcher.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { pacedWebhookLatency } from '../lib/webhook-latency.js';
import { startReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.js';
import { BENCH_TOKENS, WRITE_TOKEN as TOKEN } from './http-scenarios.js';

const TENANT = BENCH_TOKENS[TOKEN];
const HEADERS = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const BACKLOG_BASE = 3_000_000_000;
const PACED_BASE = 4_000_000_000;
const BURST_BASE = 5_000_000_000;
const PACED_RATE = 200;

export type WebhookResult = Awaited<ReturnType<typeof runWebhookScenario>>;

/** Checks a sample of deliveries with the `standardwebhooks` reference verifier. */
function verifySample(receiver: WebhookReceiver, sample = 50): { checked: number; valid: number } {
  const verifier = new Webhook(receiver.secret);
  const arrivals = [...receiver.messages.values()].slice(0, sample);
  const valid = arrivals.filter((arrival) => {
    try {
      verifier.verify(arrival.body, arrival.headers);
      return true;
    } catch {
      return false;
    }
  }).length;
  return { checked: arrivals.length, valid };
}

/** When the last webhook arrived (`since` when none came after it). */
function lastArrival(receiver: WebhookReceiver, since: number): number {
  let last = since;
  for (const arrival of receiver.messages.values()) if (arrival.headAt > last) last = arrival.headAt;
  return last;
}

/** Queues `count` plants with one delivery each through the storage adapter, before the services run. */
async function queueBacklog(storage: Awaited<ReturnType<typeof sqliteStorage>>, url: string, count: number): Promise<void> {
  try {
    for (let start = 0; start < count; start += 100) {
      const batch = Array.from({ length: Math.min(100, count - start) }, (_, index) => {
        const plant = { id: BigInt(BACKLOG_BASE + start + index), name: `Backlog plant ${start + index}` };
        const delivery = {
          id: `msg_${randomUUID().replaceAll('-', '')}`,
          tenant: TENANT,
          endpointId: subscriptionId(url),
          eventType: 'plant.created',
          payload: plantToJson(plant),
          createdAt: Date.now(),
        };
        return storage.plants.create(TENANT, plant, [delivery]);
      });
      await Promise.all(batch);
    }
  } finally {
    await storage.close();
  }
}

/**
 * Webhook dispatch, one subscription, a loopback receiver in this process
 * answering 200 at once that counts requests per `webhook-id`: one service
 * on SQLite, or two service processes on one PostgreSQL schema.
 * 1. backlog: N deliveries queued before start; N / (first ready line → last received);
 * 2. latency: creates paced at 200/s on the first instance;
 * 3. burst: N creates split over the instances, first POST → last delivery.
 */
export async function runWebhookScenario(context: BenchContext, postgres?: BenchPostgres) {
  const n = context.options.webhookPlants;
  const receiver = await startReceiver();
  const dbFile = join(context.workDir, 'webhooks.db');
  const schema = postgres ? await postgres.createSchema('webhooks') : undefined;
  const instances = postgres ? 2 : 1;
  const servers: RunningServer[] = [];
  try {
    context.log(`  queueing ${n} deliveries`);
    const storage = postgres ? await postgresStorage({ connectionString: postgres.databaseUrl, schema, poolSize: 4 }) : await sqliteStorage({ path: dbFile });
    await queueBacklog(storage, receiver.url(), n);
    const config = (index: number): ServerConfig => ({
      ...(postgres ? postgres.serverConfig(schema!) : { storage: 'sqlite', dbFile }),
      tokens: BENCH_TOKENS,
      webhooks: [{ url: receiver.url(), secret: receiver.secret }],
      ...context.profile(`webhooks-${postgres ? 'postgres' : 'sqlite'}-${index + 1}`),
    });
    const spawnedAt = performance.now();
    const started = await Promise.allSettled(Array.from({ length: instances }, (_, index) => startServer(context.launcher.spec('service', config(index)))));
    for (const result of started) if (result.status === 'fulfilled') servers.push(result.value);
    const failedStart = started.find((result) => result.status === 'rejected');
    if (failedStart) throw failedStart.reason;
    const readyAt = spawnedAt + Math.min(...servers.map((server) => server.readyMs));
    const cpuBefore = servers.map((server) => server.stats().cpuSeconds);
    await receiver.waitForMessages(n, { timeoutMs: 120_000 });
    const seconds = (lastArrival(receiver, readyAt) - readyAt) / 1000;
    const cpuPercent = servers.map((server, index) => ((server.stats().cpuSeconds - cpuBefore[index]!) / seconds) * 100);
    context.log(`  backlog: ${n} deliveries in ${seconds.toFixed(2)} s → ${(n / seconds).toFixed(0)}/s`);

    const paced = await pacedWebhookLatency(receiver, {
      url: servers[0]!.url,
      token: TOKEN,
      ratePerSecond: PACED_RATE,
      connections: 4,
      durationS: context.options.webhookLatencyS,
      firstId: PACED_BASE,
    });
    const { created } = paced;
    context.log(`  latency: ${created} paced creates, POST sent → webhook received p50 ${paced.p50Ms.toFixed(2)} ms, p99 ${paced.p99Ms.toFixed(2)} ms`);

    // Burst: creates and dispatch compete for the same processes (a load balancer would split them so).
    const burstStart = performance.now();
    const share = Math.ceil(n / instances);
    const loads = await Promise.all(
      servers.map((server, at) => {
        let id = BURST_BASE + at * share;
        return runLoad({
          url: server.url,
          connections: Math.max(1, Math.round(context.options.connections / instances)),
          amount: share,
          headers: HEADERS,
          next: () => ({ method: 'POST', path: '/plants', body: `{"id":${id},"name":"Burst plant ${id++}","tag":"burst"}` }),
        });
      }),
    );
    const burstCreated = loads.reduce((sum, load) => sum + (load.statuses['200'] ?? 0), 0);
    const createSeconds = (performance.now() - burstStart) / 1000;
    await receiver.waitForMessages(n + created + burstCreated, { timeoutMs: 120_000 });
    const endToEndSeconds = (lastArrival(receiver, burstStart) - burstStart) / 1000;
    context.log(`  burst: ${burstCreated} creates, all delivered after ${endToEndSeconds.toFixed(2)} s`);
    await Promise.all(servers.map((server) => server.stop()));
    return {
      storage: postgres ? ('postgres' as const) : ('sqlite' as const),
      /** Service processes dispatching from the same database. */
      instances,
      /** Deliveries queued before the services started, then sent by them; CPU % of each instance (100 = one core). */
      backlog: { deliveries: n, seconds, perSecond: n / seconds, cpuPercent },
      /** Creates paced at 200/s: POST written → webhook arrived (an upper bound of commit → first attempt), ms. */
      latency: { ...paced, creates: created, ratePerSecond: PACED_RATE },
      burst: { plants: burstCreated, createPerSecond: burstCreated / createSeconds, endToEndSeconds, endToEndPerSecond: burstCreated / endToEndSeconds },
      /** Distinct `webhook-id`s received, against the creates answered (requests in flight when a load stops may add a few). */
      received: receiver.messages.size,
      expected: n + created + burstCreated,
      /** Requests beyond the first per `webhook-id`, and those that arrived while another with the same id was in flight. */
      duplicates: receiver.duplicates(),
      concurrentDuplicates: receiver.concurrentDuplicates(),
      signatures: verifySample(receiver),
    };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver.close();
    if (schema !== undefined) await postgres!.dropSchema(schema);
  }
}
