import { join } from 'node:path';
import type { BenchContext } from '../lib/bench-context.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { pacedWebhookLatency } from '../lib/webhook-latency.js';
import { startReceiver } from '../../test/support/webhook-receiver.js';

const VICTIM = 'victim-token-0123456789abcdef';
const HOG = 'hog-token-0123456789abcdef';
const HANGING_TENANTS = ['t1', 't2', 't3', 't4'].map((tenant) => ({ tenant, token: `${tenant}-token-0123456789abcdef` }));
const HOG_ENDPOINTS = 50;
const HOG_PLANTS = 200;
const PACED_RATE = 50;

export type FairDeliveryResult = Awaited<ReturnType<typeof runFairDeliveryScenario>>;

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

/**
 * Fair delivery on SQLite: another tenant's webhook latency (paced creates,
 * POST sent → webhook received) alone, then while one tenant has 50
 * endpoints and four tenants one endpoint each on a receiver that never
 * answers (attempts hang until the 15 s timeout), with 10,400 deliveries
 * queued to them. The ratio of the two p99s is the cost of the others.
 */
export async function runFairDeliveryScenario(context: BenchContext) {
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
  // The victim tenant's paced creates, POST sent → webhook received.
  const victimLatency = (firstId: number) =>
    pacedWebhookLatency(fast, {
      url: server.url,
      token: VICTIM,
      ratePerSecond: PACED_RATE,
      connections: 2,
      durationS: context.options.webhookLatencyS,
      firstId,
    });
  try {
    await post(server, VICTIM, '/webhooks/endpoints', { url: fast.url('/victim') });
    const alone = await victimLatency(1);
    context.log(`  alone: p50 ${alone.p50Ms.toFixed(2)} ms, p99 ${alone.p99Ms.toFixed(2)} ms`);

    for (let n = 0; n < HOG_ENDPOINTS; n++) await post(server, HOG, '/webhooks/endpoints', { url: hanging.url(`/hog/${n}`) });
    await createPlants(server, HOG, HOG_PLANTS);
    for (const { tenant, token } of HANGING_TENANTS) {
      await post(server, token, '/webhooks/endpoints', { url: hanging.url(`/${tenant}`) });
      await createPlants(server, token, 100);
    }
    const queuedToHanging = HOG_ENDPOINTS * HOG_PLANTS + HANGING_TENANTS.length * 100;
    const withHanging = { ...(await victimLatency(1_000_000)), hangingAttempts: hanging.received.length };
    context.log(`  with ${queuedToHanging} deliveries to hanging endpoints: p50 ${withHanging.p50Ms.toFixed(2)} ms, p99 ${withHanging.p99Ms.toFixed(2)} ms`);
    return { alone, withHanging, queuedToHanging };
  } finally {
    await server.stop();
    await Promise.all([fast.close(), hanging.close()]);
  }
}
