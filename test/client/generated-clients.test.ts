import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as generateHeyApiClient } from '@hey-api/openapi-ts';
import { isLosslessNumber, isSafeNumber, parse, stringify } from 'lossless-json';
import createFetchClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// Teams generate their client from /openapi.json. docs/client.md gives,
// per generator, the settings that keep int64 ids exact; this suite follows
// each recipe as written there, on the live document: it creates ids a
// double cannot hold, pages across them with `after` and reads them back.

const IDS = [2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n];

let server: TestServer;
let folder: string;
beforeAll(async () => {
  server = await startTestServer('memory');
  folder = mkdtempSync(join(tmpdir(), 'plant-store-generated-'));
});
afterAll(async () => {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('openapi-typescript + openapi-fetch', () => {
  // The recipe: int64 typed as bigint, and JSON read and written losslessly.
  const BIGINT = ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword);
  // Every int64 of the API is a property named `id`; other numbers stay numbers.
  const reviver = (key: string, value: unknown) => (isLosslessNumber(value) ? (key === 'id' ? BigInt(value.toString()) : value.valueOf()) : value);
  class ExactJsonResponse extends Response {
    override readonly json = async (): Promise<unknown> => parse(await this.text(), reviver);
  }

  it('types ids as bigint and optional properties as optional', async () => {
    const ast = await openapiTS(new URL(`${server.url}/openapi.json`), { transform: (schema) => (schema.format === 'int64' ? BIGINT : undefined) });
    const types = astToString(ast);
    expect(types).toMatch(/PlantId: bigint;/);
    expect(types).toMatch(/after\?: bigint;/);
    expect(types).toMatch(/NewEndpoint: \{[^}]*?eventTypes\?:/s);
  });

  it('creates, pages across and reads back ids beyond 2^53 exactly', async () => {
    // Typed by the generated `paths` in an application; the calls are the same.
    const client = createFetchClient<any>({
      baseUrl: server.url,
      headers: { authorization: `Bearer ${TOKENS.owner}` },
      bodySerializer: (body: unknown) => stringify(body),
    });
    client.use({ onResponse: ({ response }) => new ExactJsonResponse(response.body, response) });
    for (const id of IDS) {
      const { data, response } = await client.POST('/plants', { body: { id, name: `fetch ${id}` } });
      expect(response.status).toBe(200);
      expect(data).toEqual({ id, name: `fetch ${id}` });
    }
    const seen: bigint[] = [];
    for (let after = IDS[0]! - 1n; ; ) {
      const { data } = await client.GET('/plants', { params: { query: { limit: 1, after } } });
      if (data.length === 0) break;
      after = data[0].id;
      seen.push(after);
    }
    expect(seen).toEqual(IDS);
    for (const id of IDS) expect((await client.GET('/plants/{id}', { params: { path: { id } } })).data).toEqual({ id, name: `fetch ${id}` });
  });
});

describe('@hey-api/openapi-ts', () => {
  it('generates a client that creates, pages across and reads back ids beyond 2^53 exactly', async () => {
    await generateHeyApiClient({
      input: `${server.url}/openapi.json`,
      output: { path: join(folder, 'hey-api') },
      logs: { level: 'silent', file: false },
      plugins: ['@hey-api/client-fetch', { name: '@hey-api/transformers', bigInt: true }, { name: '@hey-api/sdk', transformer: true }],
    });
    const sdk = await import(join(folder, 'hey-api', 'index.ts'));
    const { client } = await import(join(folder, 'hey-api', 'client.gen.ts'));
    // The recipe: ids a double cannot hold reach the generated transformers
    // (which make bigints of them) as strings, and bigints go out as numbers.
    client.setConfig({ baseUrl: server.url, auth: TOKENS.otherTenant, bodySerializer: (body: unknown) => stringify(body) });
    client.interceptors.response.use(async (response: Response) => {
      if (!response.headers.get('content-type')?.startsWith('application/json')) return response;
      const exact = parse(await response.text(), null, (digits) => (isSafeNumber(digits) ? Number(digits) : digits));
      return new Response(JSON.stringify(exact), response);
    });
    for (const id of IDS) {
      const { data, response } = await sdk.addPlant({ body: { id, name: `hey ${id}` } });
      expect(response.status).toBe(200);
      expect(data).toEqual({ id, name: `hey ${id}` });
    }
    const seen: bigint[] = [];
    for (let after = IDS[0]! - 1n; ; ) {
      const { data } = await sdk.listPlants({ query: { limit: 1, after } });
      if (data.length === 0) break;
      after = data[0].id;
      seen.push(after);
    }
    expect(seen).toEqual(IDS);
    for (const id of IDS) expect((await sdk.getPlant({ path: { id } })).data).toEqual({ id, name: `hey ${id}` });
    // Properties with a documented default stay optional in the generated types.
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(join(folder, 'hey-api', 'types.gen.ts'), 'utf8')).toMatch(/export type NewEndpoint = \{[^}]*?eventTypes\?:/s);
  });
});
