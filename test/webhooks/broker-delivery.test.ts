import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { brokerTransports, type ClosableWebhookTransport } from '@plant-store/broker-transports';
import { verifyWebhook } from '@plant-store/client';
import { createPlantStore, type PlantStore, type PlantStoreWebhookOptions } from '@plant-store/core';
import type { Storage } from '@plant-store/core/adapter';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import { postgresStorage } from '@plant-store/storage-postgres';
import { distinctById, type BrokerKind } from '../support/broker-consumers.js';
import { brokerFixtures, textLogger } from '../support/broker-fixtures.js';
import { eventually } from '../support/eventually.js';
import { TEST_DATABASE_URL, postgresAvailable, testSchemas } from '../support/postgres.js';
import { TOKENS, testTokens } from '../support/test-tokens.js';
import { openStorage } from '../support/webhook-test-service.js';

// 1,000 by default, to keep the suite short on a shared CI machine; set the variable to run more (10,000 passes too).
const PLANTS = Number(process.env.PLANT_STORE_TEST_BROKER_PLANTS ?? 1_000);
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

const storages: [string, () => Promise<Storage>][] = [['SQLite', () => openStorage('sqlite')]];
if (postgresAvailable) storages.push(['PostgreSQL', () => postgresStorage({ connectionString: TEST_DATABASE_URL, schema: schemas.next() })]);

const { defer, consumer, proxy } = brokerFixtures();

async function brokerStore(webhooks: PlantStoreWebhookOptions, logLines: string[] = [], open = () => openStorage('sqlite')): Promise<PlantStore> {
  const transport: ClosableWebhookTransport = brokerTransports({ http: webhookHttpTransport(), idleMs: 1_000 });
  const store = createPlantStore({
    storage: await open(),
    authenticator: testTokens(),
    logger: textLogger(logLines),
    webhooks: { transport, retrySchedule: [20, 40, 80], timeoutMs: 2_000, jitter: 0, ...webhooks },
  });
  defer(async () => {
    await store.close();
    await transport.close();
  });
  return store;
}

/** The plant id of a `plant.created` payload. */
function plantId(payload: object): bigint {
  if (!('id' in payload) || typeof payload.id !== 'bigint') throw new Error(`not a plant: ${JSON.stringify(Object.keys(payload))}`);
  return payload.id;
}

/** Creates plants 1…count as tenant a, a few at a time. */
async function createPlants(store: PlantStore, count: number): Promise<void> {
  const owner = await store.authenticate(TOKENS.owner);
  for (let start = 1; start <= count; start += 50) {
    const ids = Array.from({ length: Math.min(50, count - start + 1) }, (_, index) => start + index);
    await Promise.all(ids.map((id) => store.plants.create(owner, { id, name: `Plant ${id}` })));
  }
}

const KINDS: readonly BrokerKind[] = ['amqp', 'nats', 'redis', 'mqtt'];

describe.each(storages.flatMap(([storage, open]) => KINDS.map((kind) => [kind, storage, open] as const)))('webhooks to %s on %s', (kind, _, open) => {
  it(`delivers ${PLANTS} plants, each once by webhook id and verifiable`, async () => {
    const hooks = await consumer(kind);
    const secret = newSecret();
    const logLines: string[] = [];
    const store = await brokerStore({ subscriptions: [{ url: hooks.url(), secret }] }, logLines, open);
    await createPlants(store, PLANTS);
    await eventually(() => distinctById(hooks.received).length >= PLANTS, `${PLANTS} messages`, 60_000);
    const messages = distinctById(hooks.received);
    const ids = await Promise.all(messages.map(async ({ body, headers }) => plantId(await verifyWebhook(body, headers, secret))));
    expect(ids.sort((a, b) => Number(a - b))).toEqual(Array.from({ length: PLANTS }, (_, index) => BigInt(index + 1)));
    const delivered = await store.allTenants.webhooks.list({ status: 'delivered', limit: 1 });
    expect(delivered).toHaveLength(1);
    expect(logLines.join('\n')).not.toContain('guest:guest');
  });
});

describe.each(KINDS)('webhooks to %s that is unreachable', (kind) => {
  it('retries a broker that is gone, then fails the delivery with its reason', async () => {
    const hooks = await consumer(kind);
    const front = await proxy(kind);
    front.cut();
    const store = await brokerStore({ subscriptions: [{ url: hooks.url(front.port, 'guest:s3cret-pass'), secret: newSecret() }] });
    await createPlants(store, 1);
    await eventually(async () => (await store.allTenants.webhooks.list())[0]?.status === 'failed', 'a failed delivery', 20_000);
    const [delivery] = await store.allTenants.webhooks.list();
    expect(delivery!.attempts).toHaveLength(4);
    for (const attempt of delivery!.attempts) {
      expect(attempt.error).toMatch(/ECONNRESET|closed|socket|ECONNREFUSED|connect|CONNECTION|timeout/i);
      expect(attempt.error).not.toContain('s3cret-pass');
    }
    expect(hooks.received).toHaveLength(0);
  });

  it('delivers again once the broker is back, after attempts that failed', async () => {
    const hooks = await consumer(kind);
    const front = await proxy(kind);
    front.cut();
    const secret = newSecret();
    const store = await brokerStore({ subscriptions: [{ url: hooks.url(front.port), secret }], retrySchedule: [50, 100, 200, 400, 800, 1_600, 3_200] });
    await createPlants(store, 1);
    await eventually(async () => ((await store.allTenants.webhooks.list())[0]?.attemptCount ?? 0) >= 2, 'two failed attempts');
    front.restore();
    await eventually(() => hooks.received.length >= 1, 'the message', 20_000);
    expect(plantId(await verifyWebhook(hooks.received[0]!.body, hooks.received[0]!.headers, secret))).toBe(1n);
    await eventually(async () => (await store.allTenants.webhooks.list())[0]?.status === 'delivered', 'delivered');
  });
});
