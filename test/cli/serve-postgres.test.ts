import { afterAll, describe, expect, it, vi } from 'vitest';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { runCli, startServe } from '../support/cli-process.js';

// `plant-store serve --storage postgres` as a real process: start-up, a
// database that is not there, and one lost and restored while running (a TCP
// proxy of the test's own stands between the service and PostgreSQL).
describe.skipIf(!postgresAvailable)('plant-store serve on PostgreSQL', () => {
  const schemas = testSchemas();
  afterAll(() => schemas.dropAll());
  const auth = { authorization: 'Bearer s3cret', 'content-type': 'application/json' };

  it('serves plants from PostgreSQL and says so in the ready line, without the password', async () => {
    const url = new URL(TEST_DATABASE_URL);
    url.password = 'not-needed-with-trust';
    const schema = schemas.next();
    const service = await startServe(['--port', '0', '--tokens', 's3cret=acme', '--storage', 'postgres', '--db-schema', schema], {
      env: { PLANT_STORE_DATABASE_URL: url.toString() },
    });
    try {
      expect(service.stdout()).toContain(`(storage: postgres `);
      expect(service.stdout()).toContain(`schema ${schema})`);
      expect(service.stdout() + service.stderr()).not.toContain('not-needed-with-trust');
      const created = await fetch(`${service.url}/plants`, { method: 'POST', headers: auth, body: '{"id":9223372036854775807,"name":"Fern"}' });
      expect(await created.text()).toBe('{"id":9223372036854775807,"name":"Fern"}');
      expect(await (await fetch(`${service.url}/plants`, { headers: auth })).text()).toBe('[{"id":9223372036854775807,"name":"Fern"}]');
      // More than two storage batches (500 each), streamed from a storage that answers asynchronously.
      for (let from = 1; from <= 1200; from += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, k) =>
            fetch(`${service.url}/plants`, { method: 'POST', headers: auth, body: JSON.stringify({ id: from + k, name: 'n' }) }).then((r) => r.text()),
          ),
        );
      }
      const all = (await (await fetch(`${service.url}/plants`, { headers: auth, signal: AbortSignal.timeout(10_000) })).json()) as unknown[];
      expect(all).toHaveLength(1201);
    } finally {
      await service.stop();
    }
  });

  it('exits 2 with one line when the database cannot be reached at start', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 1 });
    await proxy.close();
    const exit = await runCli(['serve', '--storage', 'postgres', '--database-url', `postgres://app:hunter2@127.0.0.1:${proxy.port}/test`]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(
      /^error: PLANT_STORE_DATABASE_URL \(--database-url\): cannot use the database at postgres:\/\/app@127\.0\.0\.1:\d+\/test: .+\n$/,
    );
    expect(exit.stderr).toContain(': connection refused (');
    expect(exit.stderr).not.toContain('hunter2');
  });

  it.each([
    ['a missing database', { pathname: '/plant_store_no_such_db' }, 'database "plant_store_no_such_db" does not exist'],
    ['an unknown role', { username: 'plant_store_no_such_role' }, 'role "plant_store_no_such_role" does not exist'],
  ])('names %s at start, without the password', async (_, change, reason) => {
    const url = new URL(TEST_DATABASE_URL);
    Object.assign(url, change, { password: 'hunter2' });
    const exit = await runCli(['serve', '--storage', 'postgres', '--database-url', url.toString()]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(new RegExp(`^error: PLANT_STORE_DATABASE_URL \\(--database-url\\): cannot use the database at postgres://[^ ]+: ${reason}\n$`));
    expect(exit.stderr).not.toContain('hunter2');
  });

  it('answers 503 while the database is gone, then recovers by itself, losing nothing acknowledged', async () => {
    const target = new URL(TEST_DATABASE_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const through = new URL(TEST_DATABASE_URL);
    through.hostname = '127.0.0.1';
    through.port = String(proxy.port);
    const service = await startServe(
      ['--port', '0', '--tokens', 's3cret=acme', '--storage', 'postgres', '--db-schema', schemas.next(), '--request-timeout', '10s'],
      { env: { PLANT_STORE_DATABASE_URL: through.toString() } },
    );
    const create = (id: number) => fetch(`${service.url}/plants`, { method: 'POST', headers: auth, body: JSON.stringify({ id, name: `p${id}` }) });
    try {
      expect((await create(1)).status).toBe(200);
      proxy.cut();
      const during = await create(2);
      expect(during.status).toBe(503);
      expect(await during.json()).toEqual({ error: 503, message: 'storage unavailable' });
      expect((await fetch(`${service.url}/readyz`)).status).toBe(503);
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      proxy.restore();
      await vi.waitFor(async () => expect((await fetch(`${service.url}/readyz`)).status).toBe(200), { timeout: 15_000, interval: 200 });
      expect((await create(3)).status).toBe(200);
      const listed = (await (await fetch(`${service.url}/plants`, { headers: auth })).json()) as { id: number }[];
      expect(listed.map((plant) => plant.id)).toContain(1);
      expect(listed.map((plant) => plant.id)).toContain(3);
      expect(service.child.exitCode).toBeNull();
    } finally {
      await service.stop();
      await proxy.close();
    }
  });
});
