import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { plantToJson, subscriptionId } from '@plant-store/core/adapter';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import type { BenchContext } from '../lib/bench-context.js';
import { runLoad } from '../lib/load.js';
import { startServer } from '../lib/server-process.js';
import { latencySummary } from '../lib/stats.js';
import { startReceiver, type ReceivedWebhook, type WebhookReceiver } from '../../test/support/webhook-receiver.js';
import { BENCH_TOKENS } from './http-scenarios.js';

const TENANT = 'bench-writes';
const TOKEN = 'bench-write-token-0123456789abcdef';
const BACKLOG_BASE = 3_000_000_000;
const PACED_BASE = 4_000_000_000;
const BURST_BASE = 5_000_000_000;
const PACED_RATE = 200;

export interface WebhookResult {
  /** Deliveries queued before the service started, then sent by it. */
  readonly backlog: { readonly deliveries: number; readonly seconds: number; readonly perSecond: number; readonly cpuPercent: number };
  /** Paced creates; latencies in ms. */
  readonly latency: {
    readonly creates: number;
    readonly ratePerSecond: number;
    /** POST written by the client → webhook request arrived at the receiver (upper bound of commit → first attempt). */
    readonly clientP50Ms: number;
    readonly clientP99Ms: number;
    readonly clientMaxMs: number;
    /** The create requests' own latency, for reference. */
    readonly createP50Ms: number;
    /** From the service's outbox: first attempt start − created_at, whole ms (undefined when the schema could not be read). */
    readonly recordedP50Ms?: number;
    readonly recordedP99Ms?: number;
  };
  /** Creates as fast as 32 connections go while the dispatcher sends. */
  readonly burst: {
    readonly plants: number;
    readonly createSeconds: number;
    readonly createPerSecond: number;
    /** First POST → last delivery. */
    readonly endToEndSeconds: number;
    readonly endToEndPerSecond: number;
  };
  readonly duplicates: number;
  readonly signatures: { readonly checked: number; readonly valid: number };
}

function plantIdOf(arrival: ReceivedWebhook): number {
  return (JSON.parse(arrival.body) as { id: number }).id;
}

/** Checks a sample of deliveries with the `standardwebhooks` reference verifier. */
function verifySample(receiver: WebhookReceiver, sample: number): { checked: number; valid: number } {
  const verifier = new Webhook(receiver.secret);
  let checked = 0;
  let valid = 0;
  for (const arrival of receiver.messages.values()) {
    if (checked++ >= sample) break;
    try {
      verifier.verify(arrival.body, arrival.headers);
      valid++;
    } catch {
      // counted as invalid
    }
  }
  return { checked: Math.min(checked, sample), valid };
}

/** Queues `count` plants with one delivery each through the storage API, before the service runs. */
async function queueBacklog(dbFile: string, url: string, count: number): Promise<void> {
  const storage = await sqliteStorage({ path: dbFile });
  try {
    for (let index = 0; index < count; index++) {
      const plant = { id: BigInt(BACKLOG_BASE + index), name: `Backlog plant ${index}` };
      const delivery = {
        id: `msg_${randomUUID().replaceAll('-', '')}`,
        tenant: TENANT,
        endpointId: subscriptionId(url),
        eventType: 'plant.created',
        payload: plantToJson(plant),
        createdAt: Date.now(),
      };
      await storage.plants.create(TENANT, plant, [delivery]);
    }
  } finally {
    await storage.close();
  }
}

// The slice of better-sqlite3 used to read the outbox after the run.
interface ReadonlyDatabase {
  prepare(source: string): { pluck(toggle?: boolean): { all(...params: unknown[]): unknown[] } };
  close(): void;
}

/** First-attempt delays as the service recorded them (attempt 1 `at` − `created_at`), or undefined when unreadable. */
function recordedDelays(context: BenchContext, dbFile: string, low: number, high: number): number[] | undefined {
  try {
    const Database = createRequire(import.meta.url)(context.betterSqlite3) as new (file: string, options: object) => ReadonlyDatabase;
    const db = new Database(dbFile, { readonly: true });
    try {
      return (
        db
          .prepare(
            `SELECT a.at - d.created_at FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id AND a.attempt = 1
             WHERE CAST(json_extract(d.payload, '$.id') AS INTEGER) BETWEEN ? AND ?`,
          )
          .pluck(true)
          .all(low, high) as number[]
      ).map(Number);
    } finally {
      db.close();
    }
  } catch (error) {
    context.log(`  (could not read recorded attempt times: ${String(error)})`);
    return undefined;
  }
}

/**
 * Webhook dispatch of the service on SQLite, one subscription, a loopback
 * receiver in this process answering 200 at once (keep-alive):
 * 1. backlog: N deliveries queued through the storage API before start;
 *    deliveries/s = N / (ready line → Nth delivery received);
 * 2. latency: creates paced at 200/s; commit → first attempt;
 * 3. burst: N creates as fast as possible, first POST → last delivery.
 */
export async function runWebhookScenario(context: BenchContext): Promise<WebhookResult> {
  const { options } = context;
  const receiver = await startReceiver();
  const dbFile = join(context.workDir, 'webhooks.db');
  const n = options.webhookPlants;
  try {
    context.log(`  queueing ${n} deliveries`);
    await queueBacklog(dbFile, receiver.url(), n);
    const server = await startServer(
      context.launcher.spec('service', {
        storage: 'sqlite',
        dbFile,
        tokens: BENCH_TOKENS,
        webhooks: [{ url: receiver.url(), secret: receiver.secret }],
        ...context.profile('webhooks-sqlite-service'),
      }),
    );
    let stopped = false;
    try {
      const readyAt = performance.now();
      const cpuBefore = server.stats().cpuSeconds;
      await receiver.waitForMessages(n, { timeoutMs: 120_000 });
      let lastAt = readyAt;
      for (const arrival of receiver.messages.values()) if (arrival.headAt > lastAt) lastAt = arrival.headAt;
      const backlogSeconds = (lastAt - readyAt) / 1000;
      const backlog = {
        deliveries: n,
        seconds: backlogSeconds,
        perSecond: n / backlogSeconds,
        cpuPercent: ((server.stats().cpuSeconds - cpuBefore) / backlogSeconds) * 100,
      };
      context.log(`  backlog: ${n} deliveries in ${backlogSeconds.toFixed(2)} s → ${backlog.perSecond.toFixed(0)}/s`);

      // Paced creates: the send time of every POST, matched to its webhook by plant id.
      const sentAt = new Map<number, number>();
      let pacedId = PACED_BASE;
      const paced = await runLoad({
        url: server.url,
        connections: 4,
        durationS: options.webhookLatencyS,
        overallRate: PACED_RATE,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
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
        const id = plantIdOf(arrival);
        const sent = sentAt.get(id);
        if (sent !== undefined && id >= PACED_BASE && id < BURST_BASE) delays.push(arrival.headAt - sent);
      }
      const client = latencySummary(delays);
      context.log(`  latency: ${created} paced creates, POST sent → webhook received p50 ${client.p50.toFixed(2)} ms, p99 ${client.p99.toFixed(2)} ms`);

      // Burst: creates and dispatch compete for the same process.
      let burstId = BURST_BASE;
      const burstStart = performance.now();
      const burst = await runLoad({
        url: server.url,
        connections: options.connections,
        amount: n,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        next: () => {
          const id = burstId++;
          return { method: 'POST', path: '/plants', body: `{"id":${id},"name":"Burst plant ${id}","tag":"burst"}` };
        },
      });
      const burstCreated = burst.statuses['200'] ?? 0;
      await receiver.waitForMessages(n + created + burstCreated, { timeoutMs: 120_000 });
      let burstLast = 0;
      for (const arrival of receiver.messages.values()) if (arrival.headAt > burstLast) burstLast = arrival.headAt;
      const endToEndSeconds = (burstLast - burstStart) / 1000;
      context.log(`  burst: ${burstCreated} creates at ${burst.rps.toFixed(0)}/s, all delivered after ${endToEndSeconds.toFixed(2)} s`);

      await server.stop();
      stopped = true;
      const recorded = recordedDelays(context, dbFile, PACED_BASE, BURST_BASE - 1);
      const recordedSummary = recorded?.length ? latencySummary(recorded) : undefined;
      return {
        backlog,
        latency: {
          creates: created,
          ratePerSecond: PACED_RATE,
          clientP50Ms: client.p50,
          clientP99Ms: client.p99,
          clientMaxMs: client.max,
          createP50Ms: paced.p50Ms,
          recordedP50Ms: recordedSummary?.p50,
          recordedP99Ms: recordedSummary?.p99,
        },
        burst: {
          plants: burstCreated,
          createSeconds: burst.elapsedS,
          createPerSecond: burst.rps,
          endToEndSeconds,
          endToEndPerSecond: burstCreated / endToEndSeconds,
        },
        duplicates: receiver.duplicates(),
        signatures: verifySample(receiver, 50),
      };
    } finally {
      if (!stopped) await server.stop();
    }
  } finally {
    await receiver.close();
  }
}
