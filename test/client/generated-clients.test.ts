import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient as generateHeyApiClient } from '@hey-api/openapi-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// Teams generate their client from /openapi.json. docs/client.md gives,
// per generator, the settings that keep int64 ids exact; this suite runs
// the page's code blocks as written, on the live document: it creates ids a
// double cannot hold, pages across them with `after` and reads them back.

const IDS = [2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n];
const PAGE = join(import.meta.dirname, '..', '..', 'docs', 'client.md');

/** The `ts` blocks of the page's "Generated clients" section, in order. */
function recipeBlocks(): string[] {
  const section = readFileSync(PAGE, 'utf8')
    .split(/^## /m)
    .find((part) => part.startsWith('Generated clients\n'))!;
  return [...section.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
}

/** A page of the calls both clients make: the id of one plant after `after`, or none. */
type NextId = (after: bigint) => Promise<bigint | undefined>;

/** Pages one plant at a time from just below the first id and returns the ids seen. */
async function pageAcross(next: NextId): Promise<bigint[]> {
  const seen: bigint[] = [];
  for (let after: bigint | undefined = IDS[0]! - 1n; (after = await next(after)) !== undefined; ) seen.push(after);
  return seen;
}

let server: TestServer;
let scratch: string;
let blocks: string[];
/** Writes `code` into the scratch folder (inside the repository, so its imports resolve) and imports it. */
const load = async (name: string, code: string): Promise<Record<string, any>> => {
  writeFileSync(join(scratch, name), code);
  return import(join(scratch, name));
};
const forService = (code: string, token: string) => code.replaceAll('http://127.0.0.1:8080', server.url).replaceAll('s3cret', token);

beforeAll(async () => {
  server = await startTestServer('memory');
  scratch = mkdtempSync(join(import.meta.dirname, '.generated-'));
  blocks = recipeBlocks();
  expect(blocks).toHaveLength(4);
});
afterAll(async () => {
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('openapi-typescript + openapi-fetch, as docs/client.md sets them up', () => {
  it('types ids as bigint and optional properties as optional', async () => {
    const types = join(scratch, 'plant-store.d.ts');
    await load('generate.ts', forService(blocks[0]!, TOKENS.owner).replace("'plant-store.d.ts'", JSON.stringify(types)));
    const source = readFileSync(types, 'utf8');
    expect(source).toMatch(/PlantId: bigint;/);
    expect(source).toMatch(/after\?: bigint;/);
    expect(source).toMatch(/NewEndpoint: \{[^}]*?eventTypes\?:/s);
  });

  it('creates, pages across and reads back ids beyond 2^53 exactly', async () => {
    const { client } = await load('fetch-client.ts', `${forService(blocks[1]!, TOKENS.owner)}\nexport { client };\n`);
    for (const id of IDS) expect((await client.POST('/plants', { body: { id, name: 'Monstera' } })).data).toEqual({ id, name: 'Monstera' });
    const seen = await pageAcross(async (after) => (await client.GET('/plants', { params: { query: { limit: 1, after } } })).data[0]?.id);
    expect(seen).toEqual(IDS);
    for (const id of IDS) expect((await client.GET('/plants/{id}', { params: { path: { id } } })).data).toEqual({ id, name: 'Monstera' });
  });
});

describe('@hey-api/openapi-ts, as docs/client.md sets it up', () => {
  it('generates a client that creates, pages across and reads back ids beyond 2^53 exactly', async () => {
    const { default: config } = await load('openapi-ts.config.ts', forService(blocks[2]!, TOKENS.otherTenant));
    await generateHeyApiClient({ ...config, output: join(scratch, 'plant-store'), logs: { level: 'silent', file: false } });
    await load('setup.ts', forService(blocks[3]!, TOKENS.otherTenant));
    const sdk = await import(join(scratch, 'plant-store', 'index.ts'));
    for (const id of IDS) expect((await sdk.addPlant({ body: { id, name: 'Fern' } })).data).toEqual({ id, name: 'Fern' });
    const seen = await pageAcross(async (after) => (await sdk.listPlants({ query: { limit: 1, after } })).data[0]?.id);
    expect(seen).toEqual(IDS);
    for (const id of IDS) expect((await sdk.getPlant({ path: { id } })).data).toEqual({ id, name: 'Fern' });
    expect(readFileSync(join(scratch, 'plant-store', 'types.gen.ts'), 'utf8')).toMatch(/export type NewEndpoint = \{[^}]*?eventTypes\?:/s);
  });
});
