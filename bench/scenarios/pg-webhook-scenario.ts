import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { plantToJson, subscriptionId } from '@plant-store/core/adapter';
import type { BenchContext } from '../lib/bench-context.js';
import type { BenchPostgres } from '../lib/bench-postgres.js';
import { runLoad } from '../lib/load.js';
import type { ServerConfig } from '../lib/server-launcher.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { startReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.js';
import { BENCH_TOKENS } from './http-scenarios.js';

const TENANT = 'bench-writes';
const TOKEN = 'bench-write-token-0123456789abcdef';
const BACKLOG_BASE = 3_000_000_000;
const BURST_BASE = 5_000_000_000;
const INSTANCES = 2;
const QUEUE_BATCH = 5_000;

export interface PgWebhookResult {
  readonly instances: number;
  /** Deliveries queued before the instances started, then sent by them. */
  readonly backlog: {
    readonly deliveries: number;
    readonly seconds: number;
    readonly perSecond: number;
    /** CPU % of each instance over the backlog (100 = one core): both must have worked. */
    readonly cpuPercent: readonly number[];
  };
  /** Creates split evenly over both instances while both dispatch; first POST → last delivery. */
  readonly burst: {
    readonly plants: number;
    readonly createPerSecond: number;
    readonly endToEndSeconds: number;
    readonly endToEndPerSecond: number;
  };
  /** Distinct `webhook-id`s received, against the deliveries expected. */
  readonly received: number;
  readonly expected: number;
  /** Requests beyond the first per `webhook-id`. */
  readonly duplicates: number;
  /** Requests that arrived while another with the same `webhook-id` was in flight. */
  readonly concurrentDuplicates: number;
  /** From the outbox after the run: deliveries not `delivered`, and attempt rows beyond one per delivery. */
  readonly outbox: { readonly notDelivered: number; readonly extraAttempts: number };
  readonly signatures: { readonly checked: number; readonly valid: number };
}

/**
 * Queues `count` plants with one pending delivery each, in batches of one
 * statement (the rows `create` would write: same payload, message id and
 * endpoint id shapes), far faster than one create per plant.
 */
async function queueBacklog(postgres: BenchPostgres, schema: string, url: string, count: number): Promise<void> {
  const plants = `"${schema}".plants`;
  const deliveries = `"${schema}".webhook_deliveries`;
  for (let start = 0; start < count; start += QUEUE_BATCH) {
    const ids: number[] = [];
    const names: string[] = [];
    const messageIds: string[] = [];
    const payloads: string[] = [];
    for (let index = start; index < Math.min(count, start + QUEUE_BATCH); index++) {
      const plant = { id: BigInt(BACKLOG_BASE + index), name: `Backlog plant ${index}` };
      ids.push(BACKLOG_BASE + index);
      names.push(plant.name);
      messageIds.push(`msg_${randomUUID().replaceAll('-', '')}`);
      payloads.push(plantToJson(plant));
    }
    await postgres.query(
      `WITH p AS (INSERT INTO ${plants} (tenant, id, name) SELECT $1::text, * FROM unnest($2::bigint[], $3::text[]))
       INSERT INTO ${deliveries} (id, tenant, endpoint_id, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at)
       SELECT m.id, $1::text, $4::text, 'plant.created', m.payload, 'pending', 0, $5::bigint, $5::bigint, $5::bigint
       FROM unnest($6::text[], $7::text[]) WITH ORDINALITY AS m (id, payload, ord) ORDER BY m.ord`,
      [TENANT, ids, names, subscriptionId(url), Date.now(), messageIds, payloads],
    );
  }
}

/** Checks a sample of deliveries with the `standardwebhooks` reference verifier. */
function verifySample(receiver: WebhookReceiver, sample: number): { checked: number; valid: number } {
  const verifier = new Webhook(receiver.secret);
  let checked = 0;
  let valid = 0;
  for (const arrival of receiver.messages.values()) {
    if (checked >= sample) break;
    checked++;
    try {
      verifier.verify(arrival.body, arrival.headers);
      valid++;
    } catch {
      // counted as invalid
    }
  }
  return { checked, valid };
}

function lastArrival(receiver: WebhookReceiver, since: number): number {
  let last = since;
  for (const arrival of receiver.messages.values()) if (arrival.headAt > last) last = arrival.headAt;
  return last;
}

/** Creates `count` plants, half through each instance at once (what a load balancer in front of them does). */
async function burst(context: BenchContext, servers: readonly RunningServer[], count: number): Promise<{ created: number; seconds: number }> {
  const started = performance.now();
  const share = Math.ceil(count / servers.length);
  const loads = servers.map((server, at) => {
    let id = BURST_BASE + at * share;
    return runLoad({
      url: server.url,
      connections: Math.max(1, Math.round(context.options.connections / servers.length)),
      amount: share,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      next: () => {
        const plantId = id++;
        return { method: 'POST', path: '/plants', body: `{"id":${plantId},"name":"Burst plant ${plantId}","tag":"burst"}` };
      },
    });
  });
  const results = await Promise.all(loads);
  return { created: results.reduce((sum, result) => sum + (result.statuses['200'] ?? 0), 0), seconds: (performance.now() - started) / 1000 };
}

/** Deliveries not delivered, and attempt rows beyond one per delivery (each answered 200 at once, so one attempt each). */
async function outboxState(postgres: BenchPostgres, schema: string): Promise<PgWebhookResult['outbox']> {
  const [row] = await postgres.query<{ not_delivered: string; deliveries: string; attempts: string }>(
    `SELECT (SELECT count(*) FROM "${schema}".webhook_deliveries WHERE status <> 'delivered') AS not_delivered,
            (SELECT count(*) FROM "${schema}".webhook_deliveries) AS deliveries,
            (SELECT count(*) FROM "${schema}".webhook_attempts) AS attempts`,
  );
  return { notDelivered: Number(row!.not_delivered), extraAttempts: Number(row!.attempts) - Number(row!.deliveries) };
}

/**
 * Webhook dispatch of two service instances (separate processes) on one
 * PostgreSQL schema, one subscription, a loopback receiver answering 200
 * at once that counts requests per `webhook-id` and flags two in flight at
 * once for the same id:
 * 1. backlog: N deliveries queued before start; deliveries/s = N / (first
 *    ready line → Nth distinct delivery received);
 * 2. burst: N creates split over both instances while both dispatch.
 */
export async function runPgWebhookScenario(context: BenchContext, postgres: BenchPostgres): Promise<PgWebhookResult> {
  const n = context.options.webhookPlants;
  const receiver = await startReceiver();
  const schema = await postgres.createSchema('webhooks');
  const servers: RunningServer[] = [];
  try {
    context.log(`  queueing ${n} deliveries in schema ${schema}`);
    await queueBacklog(postgres, schema, receiver.url(), n);
    const config = (index: number): ServerConfig => ({
      storage: 'postgres',
      postgres: { databaseUrl: postgres.databaseUrl, schema, pool: postgres.pool },
      tokens: BENCH_TOKENS,
      webhooks: [{ url: receiver.url(), secret: receiver.secret }],
      ...context.profile(`pg-webhooks-instance-${index + 1}`),
    });
    const spawnedAt = performance.now();
    const started = await Promise.allSettled(
      Array.from({ length: INSTANCES }, (_, index) => startServer(context.launcher.spec('service', config(index)))),
    );
    for (const result of started) if (result.status === 'fulfilled') servers.push(result.value);
    const failedStart = started.find((result) => result.status === 'rejected');
    if (failedStart) throw failedStart.reason;
    const readyAt = spawnedAt + Math.min(...servers.map((server) => server.readyMs));
    const cpuBefore = servers.map((server) => server.stats().cpuSeconds);
    await receiver.waitForMessages(n, { timeoutMs: 120_000 });
    const seconds = (lastArrival(receiver, readyAt) - readyAt) / 1000;
    const backlog = {
      deliveries: n,
      seconds,
      perSecond: n / seconds,
      cpuPercent: servers.map((server, index) => ((server.stats().cpuSeconds - cpuBefore[index]!) / seconds) * 100),
    };
    context.log(
      `  backlog: ${n} deliveries by ${INSTANCES} instances in ${seconds.toFixed(2)} s → ${backlog.perSecond.toFixed(0)}/s ` +
        `(CPU ${backlog.cpuPercent.map((cpu) => `${cpu.toFixed(0)} %`).join(', ')})`,
    );

    const burstStart = performance.now();
    const created = await burst(context, servers, n);
    await receiver.waitForMessages(n + created.created, { timeoutMs: 120_000 });
    const endToEndSeconds = (lastArrival(receiver, burstStart) - burstStart) / 1000;
    context.log(`  burst: ${created.created} creates over ${INSTANCES} instances, all delivered after ${endToEndSeconds.toFixed(2)} s`);

    await Promise.all(servers.map((server) => server.stop()));
    const result: PgWebhookResult = {
      instances: INSTANCES,
      backlog,
      burst: {
        plants: created.created,
        createPerSecond: created.created / created.seconds,
        endToEndSeconds,
        endToEndPerSecond: created.created / endToEndSeconds,
      },
      received: receiver.messages.size,
      expected: n + created.created,
      duplicates: receiver.duplicates(),
      concurrentDuplicates: receiver.concurrentDuplicates(),
      outbox: await outboxState(postgres, schema),
      signatures: verifySample(receiver, 50),
    };
    context.log(
      `  duplicates: ${result.duplicates} (concurrent ${result.concurrentDuplicates}); outbox: ${result.outbox.notDelivered} not delivered, ${result.outbox.extraAttempts} extra attempts`,
    );
    return result;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver.close();
    await postgres.dropSchema(schema);
  }
}
