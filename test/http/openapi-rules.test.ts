import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/api-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// The served document and the validation read the same named constants; this
// suite catches them drifting apart anyway: it takes every limit from the
// document the service serves and checks that the service accepts the value
// at the limit and refuses the one beyond it.
interface Schema {
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxItems?: number;
}
interface Document {
  components: { schemas: Record<string, Schema> };
  paths: { '/plants': { get: { parameters: { name: string; schema: Schema }[] } } };
}

describe('the OpenAPI document agrees with the validation', () => {
  let server: TestServer;
  let document: Document;
  let nextId = 1;
  const create = (body: Record<string, unknown>) =>
    api(server.url, 'POST', '/plants', { token: TOKENS.owner, body: JSON.stringify({ id: nextId++, ...body }) });
  const list = (query: string) => api(server.url, 'GET', `/plants?${query}`, { token: TOKENS.owner });
  const parameter = (name: string): Schema => document.paths['/plants'].get.parameters.find((p) => p.name === name)!.schema;

  beforeAll(async () => {
    server = await startTestServer('memory');
    document = (await api(server.url, 'GET', '/openapi.json')).json as Document;
  });
  afterAll(() => server.close());

  it.each(['Name', 'Tag'])('%s: lengths in code points, as documented', async (schemaName) => {
    const { minLength, maxLength } = document.components.schemas[schemaName]!;
    const field = schemaName.toLowerCase();
    expect(minLength).toBe(1);
    // An emoji is one code point but two UTF-16 units: counting must agree with the document's.
    expect((await create({ name: 'n', [field]: '🌵'.repeat(maxLength!) })).status).toBe(200);
    expect((await create({ name: 'n', [field]: 'x'.repeat(maxLength!) })).status).toBe(200);
    const over = await create({ name: 'n', [field]: 'x'.repeat(maxLength! + 1) });
    expect(over.status).toBe(400);
    expect(over.json).toMatchObject({ message: expect.stringContaining(field) });
    expect((await create({ name: 'n', [field]: '' })).status).toBe(400);
  });

  it('limit: the documented range', async () => {
    const { minimum, maximum } = parameter('limit');
    expect((await list(`limit=${minimum}`)).status).toBe(200);
    expect((await list(`limit=${maximum}`)).status).toBe(200);
    expect((await list(`limit=${maximum! + 1}`)).status).toBe(400);
    expect((await list(`limit=${minimum! - 1}`)).status).toBe(400);
  });

  it('tag filters: at most the documented number', async () => {
    const { maxItems } = parameter('tag');
    const tags = (count: number) => Array.from({ length: count }, (_, index) => `tag=t${index}`).join('&');
    expect((await list(tags(maxItems!))).status).toBe(200);
    expect((await list(tags(maxItems! + 1))).status).toBe(400);
  });

  it('ids: the whole int64 range, as documented', async () => {
    expect(document.components.schemas['PlantId']).toMatchObject({ type: 'integer', format: 'int64' });
    const edges = ['9223372036854775807', '-9223372036854775808'];
    for (const id of edges) {
      const created = await api(server.url, 'POST', '/plants', { token: TOKENS.owner, body: `{"id":${id},"name":"edge"}` });
      expect(created.text).toBe(`{"id":${id},"name":"edge"}`);
    }
    for (const id of ['9223372036854775808', '-9223372036854775809']) {
      expect((await api(server.url, 'POST', '/plants', { token: TOKENS.owner, body: `{"id":${id},"name":"edge"}` })).status).toBe(400);
    }
  });
});
