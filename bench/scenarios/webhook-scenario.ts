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
import { latencySummary } from '../lib/stats.js';
import { startReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.js';
import { BENCH_TOKENS } from './http-scenarios.js';

const TENANT = 'bench-writes';
const HEADERS = { authorization: 'Bearer bench-write-token-0123456789abcdef', 'content-type': 'application/json' };
const BACKLOG_BASE = 3_000_000_000;
const PACED_BASE = 4_000_000_000;
const BURST_BASE = 5_000_000_000;
const PACED_RATE = 200;

export interface WebhookResult {
  readonly storage: 'sqlite' | 'postgres';
  /** Service processes dispatching from the same database. */
  readonly instances: number;
  /** Deliveries queued before the services started, then sent by them; CPU % of each instance (100 = one core). */
  readonly backlog: { readonly deliveries: number; readonly seconds: number; readonly perSecond: number; readonly cpuPercent: readonly number[] };
  /** Creates paced at 200/s: POST written by the client → webhook arrived (an upper bound of commit → first attempt), ms. */
  readonly latency: {
    readonly creates: number;
    readonly ratePerSecond: number;
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly maxMs: number;
    readonly createP50Ms: number;
  };
  /** Creates as fast as the connections go, split over the instances, while they dispatch; first POST → last delivery. */
  readonly burst: { readonly plants: number; readonly createPerSecond: number; readonly endToEndSeconds: number; readonly endToEndPerSecond: number };
  /** Distinct `webhook-id`s received, against the deliveries queued and creates answered (requests in flight when a load stops may add a few). */
  readonly received: number;
  readonly expected: number;
  /** Requests beyond the first per `webhook-id`, and those that arrived while another with the same id was in flight. */
  readonly duplicates: number;
  readonly concurrentDuplicates: number;
  readonly signatures: { readonly checked: number; readonly valid: number };
}

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
export async function runWebhookScenario(context: BenchContext, postgres?: BenchPostgres): Promise<WebhookResult> {
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
      ...(postgres
        ? { storage: 'postgres', postgres: { databaseUrl: postgres.databaseUrl, schema: schema!, pool: postgres.pool } }
        : { storage: 'sqlite', dbFile }),
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

    // Paced creates: the send time of every POST, matched to its webhook by plant id.
    const sentAt = new Map<number, number>();
    let pacedId = PACED_BASE;
    const paced = await runLoad({
      url: servers[0]!.url,
      connections: 4,
      durationS: context.options.webhookLatencyS,
      overallRate: PACED_RATE,
      headers: HEADERS,
      next: () => {
        const id = pacedId++;
        sentAt.set(id, performance.now());
        return { method: 'POST', path: '/plants', body: `{"id":${id},"name":"Paced plant ${id}"}` };
      },
    });
    const created = paced.statuses['200'] ?? 0;
    await receiver.waitForMessages(n + created, { timeoutMs: 30_000 });
    const delays: number[] = [];
    for (const arrival of receiver.messages.values()) {
      const sent = sentAt.get((JSON.parse(arrival.body) as { id: number }).id);
      if (sent !== undefined) delays.push(arrival.headAt - sent);
    }
    const latency = latencySummary(delays);
    context.log(`  latency: ${created} paced creates, POST sent → webhook received p50 ${latency.p50.toFixed(2)} ms, p99 ${latency.p99.toFixed(2)} ms`);

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
      storage: postgres ? 'postgres' : 'sqlite',
      instances,
      backlog: { deliveries: n, seconds, perSecond: n / seconds, cpuPercent },
      latency: { creates: created, ratePerSecond: PACED_RATE, p50Ms: latency.p50, p99Ms: latency.p99, maxMs: latency.max, createP50Ms: paced.p50Ms },
      burst: { plants: burstCreated, createPerSecond: burstCreated / createSeconds, endToEndSeconds, endToEndPerSecond: burstCreated / endToEndSeconds },
      received: receiver.messages.size,
      expected: n + created + burstCreated,
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
