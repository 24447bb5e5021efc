import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/api-client.js';
import { postgresAvailable } from '../support/postgres.js';
import { STORAGE_KINDS, type AnyStorageKind } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// A broker endpoint's URL comes back with its credentials as `***`. Sent back unchanged (as a form that shows it does), it
// keeps the stored credentials; a masked URL that differs, or a new endpoint with one, is a 400: `***` is no password.

const URL_WITH_CREDENTIALS = 'amqp://plants:s3cret-pass@rabbit.example:5672/?exchange=plants&routingKey=plant.created';
const MASKED = 'amqp://***@rabbit.example:5672/?exchange=plants&routingKey=plant.created';

const kinds: AnyStorageKind[] = [...STORAGE_KINDS, ...(postgresAvailable ? (['postgres'] as const) : [])];

describe.each(kinds)('masked broker credentials sent back (%s storage)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { webhooks: { endpointDestinationKinds: ['http', 'amqp'] } });
  });
  afterAll(() => server.close());

  const call = async (method: string, path: string, body?: unknown) => {
    const answer = await api(server.url, method, path, { token: TOKENS.owner, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: answer.status, json: answer.json as Record<string, unknown> };
  };
  /** The URL as stored, credentials and all. */
  const storedUrl = async (id: string) => (await server.store.webhooks.endpoints.get(await server.store.authenticate(TOKENS.owner), id)).url;

  async function created(): Promise<string> {
    const answer = await call('POST', '/webhooks/endpoints', { url: URL_WITH_CREDENTIALS });
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ url: MASKED, kind: 'amqp' });
    return answer.json.id as string;
  }

  it('keeps the stored credentials when the masked URL comes back unchanged beside other changes', async () => {
    const id = await created();
    const updated = await call('PATCH', `/webhooks/endpoints/${id}`, { url: MASKED, description: 'edited in a form' });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ url: MASKED, kind: 'amqp', description: 'edited in a form' });
    expect(await storedUrl(id)).toBe(URL_WITH_CREDENTIALS);
    // Alone, it changes nothing at all.
    const same = await call('PATCH', `/webhooks/endpoints/${id}`, { url: MASKED });
    expect(same.json.updatedAt).toBe(updated.json.updatedAt);
    expect(await storedUrl(id)).toBe(URL_WITH_CREDENTIALS);
  });

  it('refuses a masked URL that is not the endpoint’s own with a 400 that says what to send, and keeps the endpoint', async () => {
    const id = await created();
    const elsewhere = await call('PATCH', `/webhooks/endpoints/${id}`, { url: MASKED.replace('exchange=plants', 'exchange=trees') });
    expect(elsewhere).toEqual({
      status: 400,
      json: {
        error: 400,
        message:
          "url has masked credentials (***) but is not the endpoint's URL: give the real user and password to change it, or send its URL back unchanged to keep them",
      },
    });
    expect(await storedUrl(id)).toBe(URL_WITH_CREDENTIALS);
  });

  it('stores new credentials given in full', async () => {
    const id = await created();
    const changed = URL_WITH_CREDENTIALS.replace('s3cret-pass', 'n3w-pass');
    const answer = await call('PATCH', `/webhooks/endpoints/${id}`, { url: changed });
    expect(answer).toMatchObject({ status: 200, json: { url: MASKED } });
    expect(await storedUrl(id)).toBe(changed);
  });

  it('refuses a new endpoint with masked credentials', async () => {
    expect(await call('POST', '/webhooks/endpoints', { url: MASKED })).toEqual({
      status: 400,
      json: { error: 400, message: 'url has masked credentials (***): give the real user and password' },
    });
  });
});
