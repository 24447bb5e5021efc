import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '@plant-store/core/adapter';
import { postgresStorage } from '@plant-store/storage-postgres';
import { eventually } from '../support/eventually.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { openStorage, startService, type TestService } from '../support/webhook-test-service.js';

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

const storages: [string, () => Promise<Storage>][] = [
  ['memory', () => openStorage('memory')],
  ['SQLite', () => openStorage('sqlite')],
];
if (postgresAvailable) storages.push(['PostgreSQL', () => postgresStorage({ connectionString: TEST_DATABASE_URL, schema: schemas.next() })]);

const receivers: WebhookReceiver[] = [];
const services: TestService[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await Promise.all(services.splice(0).map((service) => service.close()));
});

describe.each(storages)('a receiver answering with bytes text cannot hold (%s)', (_name, open) => {
  it('records the delivery once, its answer kept with the NUL bytes escaped, and sends it no more', async () => {
    const hooks = await startReceiver();
    receivers.push(hooks);
    hooks.reply(() => ({ status: 200, body: Buffer.from('ok\u0000\u0000 done') }));
    const api = await startService(await open(), { subscriptions: [{ url: hooks.url('/hook'), secret: hooks.secret }] });
    services.push(api);
    expect(await api.create('{"id":1,"name":"Fern"}')).toBe(200);
    const newest = async () => (await api.store.allTenants.webhooks.list())[0];
    await eventually(async () => (await newest())?.status === 'delivered', 'the delivery recorded as delivered');
    expect((await newest())?.attempts).toMatchObject([{ statusCode: 200, response: 'ok\\u0000\\u0000 done' }]);
    expect(hooks.received).toHaveLength(1);
  });
});
