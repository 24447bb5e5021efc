// The bundled CLI, the program `plant-store`, `pnpm start` and the docs run
// (`pnpm build` makes it; these tests need a build, like the bin's). The
// other CLI suites run the TypeScript sources through tsx; the bundle is
// built from the same sources, so what is checked here is what bundling
// alone can break: whatever a module finds relative to its own file or loads
// at run time. That is the versions read from package.json files, the
// portal's and swagger-ui's files, prom-client, better-sqlite3's addon (in
// the main thread and in the checkpoint worker), kysely's Migrator for an
// existing file, pg, the tracing SDK, the other commands, and the laziness
// of the storage adapters.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { version } from '@plant-store/server';
import { runCli, startServe, type ServeProcess } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';
import { startOtlpSink } from '../support/otlp-sink.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';

/** The SQLite driver of the SQLite adapter (the suites do not depend on it themselves); only what these tests use. */
interface SqliteFile {
  exec(sql: string): void;
  close(): void;
}
const BetterSqlite3 = createRequire(new URL('../../packages/storage-sqlite/package.json', import.meta.url))('better-sqlite3') as new (
  path: string,
) => SqliteFile;

const TOKEN = 'built-token';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const dir = mkdtempSync(join(tmpdir(), 'plant-store-built-'));
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

async function serveBuilt(args: readonly string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const service = await startServe(['--port=0', ...args], { from: 'build', env: { PLANT_STORE_TOKENS: `${TOKEN}=acme`, ...env } });
  cleanups.push(() => service.stop('SIGKILL'));
  return service;
}

/** A real receiver on 127.0.0.1 that answers 204 and keeps what it got. */
async function startReceiver(): Promise<{ url: string; received: { headers: IncomingHttpHeaders; body: string }[] }> {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

/** Creates a plant; `id` is written into the JSON as given (so it may be beyond 2^53). */
async function createPlant(service: ServeProcess, id: string): Promise<string> {
  const response = await fetch(`${service.url}/plants`, { method: 'POST', headers: auth, body: `{"id":${id},"name":"Fern"}` });
  expect(response.status).toBe(200);
  return response.text();
}

/** Lines logged at warn or error: a part that failed to load in the bundle would say so there. */
const complaints = (service: ServeProcess) => service.logs().filter((line) => line['level'] === 'warn' || line['level'] === 'error');

describe('the built plant-store CLI', () => {
  it('serves an existing SQLite file (migrated by kysely), delivers a signed webhook, and serves /docs, /portal and /metrics', async () => {
    const db = join(dir, 'existing.db');
    // A file of the host's that is not empty: kysely's Migrator adds the schema beside the host's table.
    const host = new BetterSqlite3(db);
    host.exec('CREATE TABLE host_notes (note TEXT)');
    host.close();
    const receiver = await startReceiver();
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const service = await serveBuilt([`--db=${db}`], { PLANT_STORE_WEBHOOKS: JSON.stringify([{ url: receiver.url, secret }]) });

    expect(await createPlant(service, '9007199254740993')).toBe('{"id":9007199254740993,"name":"Fern"}');
    await eventually(() => receiver.received.length > 0, 'the delivery');
    const delivery = receiver.received[0]!;
    expect(delivery.headers['user-agent']).toBe(`plant-store/${version}`);
    expect(() => new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)).not.toThrow();

    const docs = await fetch(`${service.url}/docs/swagger-ui.css`);
    expect({ status: docs.status, size: (await docs.text()).length > 1000 }).toEqual({ status: 200, size: true });
    const page = await (await fetch(`${service.url}/portal`)).text();
    const script = /src="(portal\/portal-[^"]+\.js)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`${service.url}/${script}`)).status).toBe(200);
    expect(await (await fetch(`${service.url}/metrics`)).text()).toContain('http_requests_total');

    expect(complaints(service)).toEqual([]);
    expect((await service.stop()).code).toBe(0);
  });

  it('backs up a running service, and lists its deliveries', async () => {
    const db = join(dir, 'backed-up.db');
    const service = await serveBuilt([`--db=${db}`]);
    await createPlant(service, '1');
    const backup = await runCli(['backup', `--db=${db}`, join(dir, 'copy.db')], { from: 'build' });
    expect({ code: backup.code, stderr: backup.stderr }).toEqual({ code: 0, stderr: '' });
    expect(readFileSync(join(dir, 'copy.db')).subarray(0, 15).toString()).toBe('SQLite format 3');
    const list = await runCli(['webhooks', 'list', `--db=${db}`, '--json'], { from: 'build' });
    expect({ code: list.code, stderr: list.stderr }).toEqual({ code: 0, stderr: '' });
    expect((await service.stop()).code).toBe(0);
  });

  it('as a memory service, never maps the SQLite driver', async () => {
    const service = await serveBuilt(['--storage=memory']);
    expect(await createPlant(service, '2')).toBe('{"id":2,"name":"Fern"}');
    expect(readFileSync(`/proc/${service.child.pid}/maps`, 'utf8')).not.toContain('better_sqlite3.node');
    expect((await service.stop()).code).toBe(0);
  });

  it('exports spans when tracing is asked for', async () => {
    const sink = await startOtlpSink();
    cleanups.push(() => sink.close());
    const service = await serveBuilt(['--storage=memory'], { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'built-cli' });
    await createPlant(service, '3');
    expect((await service.stop()).code).toBe(0);
    expect(sink.spans.map((span) => `${span.service} ${span.name}`)).toContain('built-cli POST /plants');
  });

  describe.skipIf(!postgresAvailable)('on PostgreSQL', () => {
    const schemas = testSchemas();
    afterAll(() => schemas.dropAll());

    it('serves plants', async () => {
      const service = await serveBuilt(['--storage=postgres', `--database-url=${TEST_DATABASE_URL}`, `--db-schema=${schemas.next()}`]);
      expect(await createPlant(service, '4')).toBe('{"id":4,"name":"Fern"}');
      expect(await (await fetch(`${service.url}/plants`, { headers: auth })).text()).toBe('[{"id":4,"name":"Fern"}]');
      expect((await service.stop()).code).toBe(0);
    });
  });
});
