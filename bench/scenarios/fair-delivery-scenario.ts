import { join } from 'node:path';
import type { BenchContext } from '../lib/bench-context.js';
import { runLoad } from '../lib/load.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { latencySummary } from '../lib/stats.js';
import { startReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.js';

const VICTIM = 'victim-token-0123456789abcdef';
const HOG = 'hog-token-0123456789abcdef';
const HANGING_TENANTS = ['t1', 't2', 't3', 't4'].map((tenant) => ({ tenant, token: `${tenant}-token-0123456789abcdef` }));
const HOG_ENDPOINTS = 50;
const HOG_PLANTS = 200;
const PACED_RATE = 50;

export interface FairDeliveryResult {
  /** The victim tenant's POST sent → webhook received, in ms, alone. */
  readonly alone: { readonly deliveries: number; readonly p50Ms: number; readonly p99Ms: number };
  /** The same while hanging endpoints hold their slots and 10,000 deliveries wait behind them. */
  readonly withHanging: { readonly deliveries: number; readonly p50Ms: number; readonly p99Ms: number; readonly hangingAttempts: number };
  /** Deliveries queued to hanging endpoints during the second phase. */
  readonly queuedToHanging: number;
}

async function post(server: RunningServer, token: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
}

async function createPlants(server: RunningServer, token: string, count: number): Promise<void> {
  for (let id = 1; id <= count; id += 16) {
    await Promise.all(Array.from({ length: Math.min(16, count - id + 1) }, (_, k) => post(server, token, '/plants', { id: id + k, name: `plant ${id + k}` })));
  }
}

/** Paced creates by the victim; the latency of each plant's webhook at the victim's receiver. */
async function victimLatency(context: BenchContext, server: RunningServer, fast: WebhookReceiver, firstId: number) {
  const sentAt = new Map<number, number>();
  const before = fast.received.length;
  let nextId = firstId;
  const paced = await runLoad({
    url: server.url,
    connections: 2,
    durationS: context.options.webhookLatencyS,
    overallRate: PACED_RATE,
    headers: { authorization: `Bearer ${VICTIM}`, 'content-type': 'application/json' },
    next: () => {
      const id = nextId++;
      sentAt.set(id, performance.now());
      return { method: 'POST', path: '/plants', body: `{"id":${id},"name":"victim ${id}"}` };
    },
  });
  const created = paced.statuses['200'] ?? 0;
  await fast.waitFor(before + created, { timeoutMs: 60_000 });
  const delays = fast.received
    .map((arrival) => ({ arrival, id: (JSON.parse(arrival.body) as { id: number }).id }))
    .filter(({ id }) => id >= firstId)
    .map(({ arrival, id }) => arrival.headAt - sentAt.get(id)!);
  const summary = latencySummary(delays);
  return { deliveries: delays.length, p50Ms: summary.p50, p99Ms: summary.p99 };
}

/**
 * Fair delivery on SQLite: another tenant's webhook latency (paced creates,
 * POST sent → webhook received) alone, then while one tenant has 50
 * endpoints and four tenants one endpoint each on a receiver that never
 * answers (attempts hang until the 15 s timeout), with 10,400 deliveries
 * queued to them. The ratio of the two p99s is the cost of the others.
 */
export async function runFairDeliveryScenario(context: BenchContext): Promise<FairDeliveryResult> {
  const fast = await startReceiver();
  const hanging = await startReceiver();
  hanging.reply(() => 'hang');
  const tokens = { [VICTIM]: 'victim', [HOG]: 'hog', ...Object.fromEntries(HANGING_TENANTS.map(({ tenant, token }) => [token, tenant])) };
  const server = await startServer(
    context.launcher.spec('service', {
      storage: 'sqlite',
      dbFile: join(context.workDir, 'fair-delivery.db'),
      tokens,
      logging: false,
      env: { PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' },
    }),
  );
  try {
    await post(server, VICTIM, '/webhooks/endpoints', { url: fast.url('/victim') });
    const alone = await victimLatency(context, server, fast, 1);
    context.log(`  alone: p50 ${alone.p50Ms.toFixed(2)} ms, p99 ${alone.p99Ms.toFixed(2)} ms`);

    for (let n = 0; n < HOG_ENDPOINTS; n++) await post(server, HOG, '/webhooks/endpoints', { url: hanging.url(`/hog/${n}`) });
    await createPlants(server, HOG, HOG_PLANTS);
    for (const { tenant, token } of HANGING_TENANTS) {
      await post(server, token, '/webhooks/endpoints', { url: hanging.url(`/${tenant}`) });
      await createPlants(server, token, 100);
    }
    const queuedToHanging = HOG_ENDPOINTS * HOG_PLANTS + HANGING_TENANTS.length * 100;
    const withHanging = { ...(await victimLatency(context, server, fast, 1_000_000)), hangingAttempts: hanging.received.length };
    context.log(`  with ${queuedToHanging} deliveries to hanging endpoints: p50 ${withHanging.p50Ms.toFixed(2)} ms, p99 ${withHanging.p99Ms.toFixed(2)} ms`);
    return { alone, withHanging, queuedToHanging };
  } finally {
    await server.stop();
    await Promise.all([fast.close(), hanging.close()]);
  }
}
