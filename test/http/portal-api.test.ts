import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '@plant-store/core/adapter';
import { postgresAvailable } from '../support/postgres.js';
import { api, expectObservationsDocumented, type ApiResponse } from '../support/api-client.js';
import type { AnyStorageKind } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// The API behind the tenant webhook portal over real HTTP, on every storage:
// the session route, and portal link tokens as bearer tokens (tenant, scopes,
// expiry, revocation).

expectObservationsDocumented();

const KINDS: AnyStorageKind[] = ['memory', 'sqlite', ...(postgresAvailable ? (['postgres'] as const) : [])];

/** The slice of JSON Schema the event schemas use: enough to check that a body conforms. */
function conforms(schema: Record<string, unknown>, value: unknown): boolean {
  if (schema.type === 'object') {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    if (!((schema.required ?? []) as string[]).every((key) => key in value)) return false;
    if (schema.additionalProperties === false && !Object.keys(value).every((key) => key in properties)) return false;
    return Object.entries(value).every(([key, entry]) => properties[key] === undefined || conforms(properties[key]!, entry));
  }
  if (schema.type === 'integer') return typeof value === 'number' && Number.isInteger(value);
  if (schema.type === 'string') {
    const length = typeof value === 'string' ? [...value].length : -1;
    return length >= ((schema.minLength as number) ?? 0) && length <= ((schema.maxLength as number) ?? Infinity);
  }
  throw new Error(`conforms() does not know ${JSON.stringify(schema)}`);
}

function expectError(response: ApiResponse, status: number): void {
  expect({ status: response.status, body: response.json }).toEqual({ status, body: { error: status, message: expect.any(String) } });
}

describe.each(KINDS)('portal API over HTTP (%s storage)', (kind) => {
  let server: TestServer;
  let offset = 0;
  const clock: Clock = { now: () => Date.now() + offset };
  beforeAll(async () => {
    server = await startTestServer(kind, { clock });
  });
  afterAll(() => server.close());
  const call = (method: string, path: string, token?: string, body?: unknown) =>
    api(server.url, method, path, { token, body: body === undefined ? undefined : JSON.stringify(body) });

  it('GET /webhooks/session: tenant, subject and scopes of any valid token; 401 without one', async () => {
    const session = await call('GET', '/webhooks/session', TOKENS.reader);
    expect(session.status).toBe(200);
    expect(session.json).toEqual({ tenant: 'a', subject: expect.stringMatching(/^token:/), scopes: ['plants:read'] });
    expect((await call('HEAD', '/webhooks/session', TOKENS.reader)).status).toBe(200);
    expectError(await call('GET', '/webhooks/session'), 401);
    expectError(await call('GET', '/webhooks/session', 'nope'), 401);
    expect((await call('POST', '/webhooks/session', TOKENS.owner)).status).toBe(405);
    expect((await call('GET', '/webhooks/session/x', TOKENS.owner)).status).toBe(404);
  });

  it('GET /webhooks/event-types: each type with a self-contained JSON Schema and an example that conforms to it', async () => {
    const response = await call('GET', '/webhooks/event-types', TOKENS.webhookReader);
    expect(response.status).toBe(200);
    const catalogue = response.json as { type: string; description: string; schema: Record<string, unknown>; example: unknown }[];
    expect(catalogue.map((entry) => entry.type)).toEqual(['plant.created', 'plant.deleted', 'webhook.endpoint.disabled', 'webhook.delivery.failed']);
    const [created, deleted] = catalogue;
    expect(created!.schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      required: ['id', 'name'],
      additionalProperties: false,
      properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string', minLength: 1, maxLength: 256 }, tag: { maxLength: 64 } },
    });
    expect(deleted!.schema).toMatchObject({ type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'integer' } } });
    expect(response.text).not.toContain('$ref');
    for (const entry of catalogue) {
      expect(entry.description.length).toBeGreaterThan(10);
      expect(conforms(entry.schema, entry.example)).toBe(true);
    }
    expect(conforms(created!.schema, { id: 1, name: 'x', tags: 'typo' })).toBe(false);
    // Ids in examples are exact int64 text.
    expect(response.text).toContain('"example":{"id":9223372036854775807,');
    // A read-only portal link may read it; a plants-only token may not.
    const link = await server.store.allTenants.portalLinks.mint({ tenant: 'a', readOnly: true });
    expect((await call('GET', '/webhooks/event-types', link.token)).status).toBe(200);
    expectError(await call('GET', '/webhooks/event-types', TOKENS.reader), 403);
    expectError(await call('GET', '/webhooks/event-types'), 401);
  });

  it('a read-write link reads and manages its tenant\u2019s webhooks, and nothing else', async () => {
    const link = await server.store.allTenants.portalLinks.mint({ tenant: 'a' });
    const session = await call('GET', '/webhooks/session', link.token);
    expect(session.json).toEqual({
      tenant: 'a',
      subject: `portal-link:${link.id}`,
      scopes: ['webhooks:read', 'webhooks:write'],
      expiresAt: new Date(link.expiresAt).toISOString(),
    });
    const created = await call('POST', '/webhooks/endpoints', link.token, { url: 'https://example.com/portal' });
    expect(created.status).toBe(201);
    const id = (created.json as { id: string }).id;
    expect((await call('GET', `/webhooks/endpoints/${id}`, link.token)).status).toBe(200);
    // Never plants.
    expectError(await call('GET', '/plants', link.token), 403);
    expectError(await call('POST', '/plants', link.token, { id: 1, name: 'x' }), 403);
    // Another tenant's endpoint is not found.
    const theirs = await call('POST', '/webhooks/endpoints', TOKENS.otherTenant, { url: 'https://example.com/b' });
    expectError(await call('GET', `/webhooks/endpoints/${(theirs.json as { id: string }).id}`, link.token), 404);
    expectError(await call('DELETE', `/webhooks/endpoints/${(theirs.json as { id: string }).id}`, link.token), 404);
    expect((await call('DELETE', `/webhooks/endpoints/${id}`, link.token)).status).toBe(204);
  });

  it('a read-only link reads, and every write route answers 403', async () => {
    const endpoint = await call('POST', '/webhooks/endpoints', TOKENS.owner, { url: 'https://example.com/ro' });
    const id = (endpoint.json as { id: string }).id;
    const link = await server.store.allTenants.portalLinks.mint({ tenant: 'a', readOnly: true });
    expect((await call('GET', '/webhooks/session', link.token)).json).toMatchObject({ scopes: ['webhooks:read'] });
    expect((await call('GET', '/webhooks/endpoints', link.token)).status).toBe(200);
    expect((await call('GET', `/webhooks/endpoints/${id}`, link.token)).status).toBe(200);
    expect((await call('GET', '/webhooks/deliveries', link.token)).status).toBe(200);
    const writes: [string, string, unknown?][] = [
      ['POST', '/webhooks/endpoints', { url: 'https://example.com/x' }],
      ['PATCH', `/webhooks/endpoints/${id}`, { status: 'disabled' }],
      ['DELETE', `/webhooks/endpoints/${id}`],
      ['GET', `/webhooks/endpoints/${id}/secret`],
      ['POST', `/webhooks/endpoints/${id}/rotate-secret`, {}],
      ['POST', `/webhooks/endpoints/${id}/recover`, { since: '2020-01-01T00:00:00Z' }],
      ['POST', '/webhooks/deliveries/msg_x/resend'],
    ];
    for (const [method, path, body] of writes) {
      const response = await call(method, path, link.token, body);
      expectError(response, 403);
      expect(response.headers.get('www-authenticate')).toContain('insufficient_scope');
    }
    expect((await call('GET', `/webhooks/endpoints/${id}`, TOKENS.owner)).json).toMatchObject({ status: 'enabled' });
  });

  it('a revoked link and an expired one are invalid tokens (401 invalid_token)', async () => {
    const revoked = await server.store.allTenants.portalLinks.mint({ tenant: 'a' });
    const expiring = await server.store.allTenants.portalLinks.mint({ tenant: 'a', expiresInMs: 60_000 });
    expect((await call('GET', '/webhooks/session', revoked.token)).status).toBe(200);
    expect(await server.store.allTenants.portalLinks.revoke(revoked.id)).toBe(true);
    const refused = await call('GET', '/webhooks/endpoints', revoked.token);
    expectError(refused, 401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await call('GET', '/webhooks/session', expiring.token)).status).toBe(200);
    offset = 60_000;
    try {
      expectError(await call('GET', '/webhooks/session', expiring.token), 401);
    } finally {
      offset = 0;
    }
  });
});
