import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli-process.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// Fair delivery through the real service: receivers that hang until the
// attempt timeout, however many and whoever owns them, must not hold up
// another tenant's webhooks. The timeout is long (10 s) so that a delivery
// arriving within 2 s of its plant can only have taken a slot the hanging
// attempts left free.

const TIMEOUT = '10s';
const PROMPT_MS = 2_000;
const HANGING_TENANTS = ['t1', 't2', 't3', 't4'];
const TOKENS = ['hog=hog', 'victim=victim', ...HANGING_TENANTS.map((tenant) => `${tenant}=${tenant}`)].join(',');
const MAX_ENDPOINTS = 50;

const headersOf = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

async function post(base: string, token: string, path: string, body: unknown): Promise<Response> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: headersOf(token), body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return response;
}

async function createEndpoint(base: string, token: string, url: string): Promise<void> {
  await post(base, token, '/webhooks/endpoints', { url });
}

async function createPlants(base: string, token: string, ids: readonly number[], parallel = 8): Promise<void> {
  for (let i = 0; i < ids.length; i += parallel) {
    await Promise.all(ids.slice(i, i + parallel).map((id) => post(base, token, '/plants', { id, name: `plant ${id}` })));
  }
}

/**
 * The victim tenant creates plants one by one, a little apart, while the
 * hanging attempts hold their slots; resolves with how long each plant's
 * webhook took to reach the victim's receiver after its create was answered.
 */
async function victimLatencies(bases: readonly string[], fast: WebhookReceiver, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let id = 1; id <= count; id++) {
    const base = bases[id % bases.length]!;
    await post(base, 'victim', '/plants', { id, name: `victim ${id}` });
    const acknowledged = Date.now();
    await fast.waitFor(id, { path: '/victim', timeoutMs: 5_000 }).catch(() => {
      throw new Error(`the victim's webhook for plant ${id} did not arrive within 5 s (${fast.at('/victim').length} of ${id} arrived)`);
    });
    latencies.push(fast.at('/victim')[id - 1]!.at - acknowledged);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return latencies;
}

interface Deployment {
  /** Base URLs of the instances. */
  readonly bases: readonly string[];
  stop(): Promise<void>;
}

type Start = () => Promise<Deployment>;

function fairnessSuite(start: Start): void {
  const receivers: WebhookReceiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  async function receiversFor(): Promise<{ hanging: WebhookReceiver; fast: WebhookReceiver }> {
    const hanging = await startReceiver();
    hanging.reply(() => 'hang');
    const fast = await startReceiver();
    receivers.push(hanging, fast);
    return { hanging, fast };
  }

  it('one tenant with every endpoint it may have hanging, 10,000 deliveries queued: another tenant still gets its webhooks promptly', {
    timeout: 90_000,
  }, async () => {
    const { hanging, fast } = await receiversFor();
    const deployment = await start();
    try {
      const [first] = deployment.bases;
      await createEndpoint(first!, 'victim', fast.url('/victim'));
      for (let n = 0; n < MAX_ENDPOINTS; n++) await createEndpoint(first!, 'hog', hanging.url(`/hog/${n}`));
      await createPlants(
        first!,
        'hog',
        Array.from({ length: 10_000 / MAX_ENDPOINTS }, (_, i) => i + 1),
      );
      // The hog's attempts fill every slot they may have before the victim starts.
      await hanging.waitFor(32);
      const latencies = await victimLatencies(deployment.bases, fast, 15);
      expect(Math.max(...latencies)).toBeLessThan(PROMPT_MS);
      // The hanging receiver was really being tried all along, and still is.
      expect(hanging.received.length).toBeGreaterThanOrEqual(32);
      // The hog's backlog shows as queue delay on the dashboard.
      const metrics = await (await fetch(`${first}/metrics`)).text();
      const delay = /^plant_store_webhook_queue_delay_seconds\{endpoints="all"\} (\S+)$/m.exec(metrics);
      expect(Number(delay?.[1])).toBeGreaterThan(0);
    } finally {
      await deployment.stop();
    }
  });

  it('four tenants with one hanging endpoint each: another tenant still gets its webhooks promptly', { timeout: 90_000 }, async () => {
    const { hanging, fast } = await receiversFor();
    const deployment = await start();
    try {
      const [first] = deployment.bases;
      await createEndpoint(first!, 'victim', fast.url('/victim'));
      for (const tenant of HANGING_TENANTS) {
        await createEndpoint(first!, tenant, hanging.url(`/${tenant}`));
        await createPlants(
          first!,
          tenant,
          Array.from({ length: 100 }, (_, i) => i + 1),
        );
      }
      await hanging.waitFor(HANGING_TENANTS.length * 8);
      const latencies = await victimLatencies(deployment.bases, fast, 15);
      expect(Math.max(...latencies)).toBeLessThan(PROMPT_MS);
    } finally {
      await deployment.stop();
    }
  });
}

const serviceEnv = {
  PLANT_STORE_TOKENS: TOKENS,
  PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
  PLANT_STORE_WEBHOOK_TIMEOUT: TIMEOUT,
  PLANT_STORE_WEBHOOK_RETRY: '1s,1s,1s',
  PLANT_STORE_LOG_LEVEL: 'warn',
};

async function stopAll(services: readonly ServeProcess[]): Promise<void> {
  // Attempts still hanging are interrupted by the shutdown; SIGKILL after a while all the same.
  await Promise.all(services.map((service) => service.stop('SIGTERM', 15_000).catch(() => service.stop('SIGKILL'))));
}

describe('fair webhook delivery on SQLite', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  fairnessSuite(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plant-store-fair-'));
    dirs.push(dir);
    const service = await startServe(['--port', '0', '--db', join(dir, 'plants.db')], { env: serviceEnv });
    return { bases: [service.url], stop: () => stopAll([service]) };
  });
});

describe.skipIf(!postgresAvailable)('fair webhook delivery on two PostgreSQL instances', () => {
  const schemas = testSchemas();
  afterAll(async () => {
    await schemas.dropAll();
  });
  fairnessSuite(async () => {
    const schema = schemas.next();
    const args = ['--port', '0', '--storage', 'postgres', '--db-schema', schema];
    const env = { ...serviceEnv, PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL };
    // The second starts once the first has migrated the schema.
    const first = await startServe(args, { env });
    const second = await startServe(args, { env });
    return { bases: [first.url, second.url], stop: () => stopAll([first, second]) };
  });
});
