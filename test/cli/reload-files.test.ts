import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { advisoryLockKey } from '../../packages/storage-postgres/src/advisory-lock-key.js';
import { READY_LINE, spawnCli, startServe } from '../support/cli-process.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas, withClient } from '../support/postgres.js';
import { startReceiver } from '../support/webhook-receiver.js';

// Rotating and revoking tokens, and changing webhook subscriptions, without
// a restart: the files are read again when they change and on SIGHUP, which
// never ends the service.

const dir = mkdtempSync(join(tmpdir(), 'plant-store-reload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The status of a plant list as the holder of `token`: 200 while the service takes the token, 401 once it does not. */
async function listStatus(url: string, token: string): Promise<number> {
  return (await fetch(`${url}/plants`, { headers: { authorization: `Bearer ${token}` } })).status;
}

/** Creates plant `id` as the holder of `token`; the status of the answer. */
async function createPlant(url: string, token: string, id: number): Promise<number> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name: 'p' }),
  });
  return response.status;
}

describe('plant-store serve reloads its tokens and webhooks files', () => {
  it('applies a changed file at once, keeps the old set on a bad one, and reloads on SIGHUP', async () => {
    const file = join(dir, 'tokens.json');
    writeFileSync(
      file,
      JSON.stringify([
        { token: 'old-token', tenant: 'acme' },
        { token: 'kept-token', tenant: 'acme' },
      ]),
    );
    const service = await startServe(['--port', '0', '--storage', 'memory', '--tokens-file', file]);
    const status = (token: string) => listStatus(service.url, token);
    const logged = (message: string) => service.logs().filter((line) => line['msg'] === message);
    try {
      expect(await status('old-token')).toBe(200);

      writeFileSync(
        file,
        JSON.stringify([
          { token: 'new-token', tenant: 'acme' },
          { token: 'kept-token', tenant: 'acme' },
        ]),
      );
      await vi.waitFor(() => expect(logged('tokens reloaded')).toHaveLength(1), { timeout: 5_000 });
      expect(logged('tokens reloaded')[0]).toMatchObject({ level: 'info', added: 1, removed: 1, total: 2, trigger: `${file} changed` });
      expect(await status('old-token')).toBe(401);
      expect(await status('new-token')).toBe(200);

      writeFileSync(file, '[{"token": "half-written", "tenant": "acme"},');
      await vi.waitFor(() => expect(logged('tokens reload failed; the current tokens stay in use')).toHaveLength(1), { timeout: 5_000 });
      expect(String(logged('tokens reload failed; the current tokens stay in use')[0]!['error'])).toContain('PLANT_STORE_TOKENS_FILE (--tokens-file)');
      expect(await status('new-token')).toBe(200);
      expect(await status('half-written')).toBe(401);

      writeFileSync(file, JSON.stringify([{ token: 'kept-token', tenant: 'acme' }]));
      service.child.kill('SIGHUP');
      await vi.waitFor(() => expect(logged('tokens reloaded').some((line) => line['trigger'] === 'SIGHUP')).toBe(true), { timeout: 5_000 });
      expect(await status('new-token')).toBe(401);
      expect(await status('kept-token')).toBe(200);
      expect(service.child.exitCode).toBeNull();
      expect(service.stdout()).not.toContain('kept-token');
    } finally {
      expect((await service.stop()).code).toBe(0);
    }
  });

  it('survives SIGHUP without a tokens file', async () => {
    const service = await startServe(['--port', '0', '--storage', 'memory', '--tokens', 't=acme']);
    try {
      service.child.kill('SIGHUP');
      await vi.waitFor(
        () => expect(service.logs().some((line) => line['msg'] === 'nothing to reload: no tokens file or webhooks file is configured')).toBe(true),
        { timeout: 5_000 },
      );
      expect(service.child.exitCode).toBeNull();
    } finally {
      expect((await service.stop()).code).toBe(0);
    }
  });

  it('sends new plants to the subscriptions of the changed webhooks file', async () => {
    const receiver = await startReceiver();
    const received = () => receiver.received.map((request) => request.path);
    const { secret } = receiver;
    const file = join(dir, 'webhooks.json');
    writeFileSync(file, JSON.stringify([{ url: receiver.url('/old'), secret }]));
    const service = await startServe(['--port', '0', '--storage', 'memory', '--tokens', 't=acme', '--webhooks-file', file]);
    try {
      expect(await createPlant(service.url, 't', 1)).toBe(200);
      await vi.waitFor(() => expect(received()).toEqual(['/old']), { timeout: 5_000 });
      writeFileSync(file, JSON.stringify([{ url: receiver.url('/new'), secret }]));
      await vi.waitFor(
        () => expect(service.logs().find((line) => line['msg'] === 'webhook subscriptions reloaded')).toMatchObject({ added: 1, removed: 1, total: 1 }),
        {
          timeout: 5_000,
        },
      );
      expect(await createPlant(service.url, 't', 2)).toBe(200);
      await vi.waitFor(() => expect(received()).toEqual(['/old', '/new']), { timeout: 5_000 });
      expect(service.stdout()).not.toContain(secret);
    } finally {
      await service.stop();
      await receiver.close();
    }
  });

  it('reloads each file on its own: a broken webhooks file does not hold back a token revocation, and keeps its last good subscriptions', async () => {
    const receiver = await startReceiver();
    const received = () => receiver.received.map((request) => request.path);
    const tokens = join(dir, 'separate-tokens.json');
    const webhooks = join(dir, 'separate-webhooks.json');
    writeFileSync(
      tokens,
      JSON.stringify([
        { token: 'revoked-token', tenant: 'acme' },
        { token: 'kept-token', tenant: 'acme' },
      ]),
    );
    writeFileSync(webhooks, JSON.stringify([{ url: receiver.url('/kept'), secret: receiver.secret }]));
    const service = await startServe(['--port', '0', '--storage', 'memory', '--tokens-file', tokens, '--webhooks-file', webhooks]);
    const status = (token: string) => listStatus(service.url, token);
    const bySighup = (message: string) => service.logs().find((line) => line['msg'] === message && line['trigger'] === 'SIGHUP');
    try {
      expect(await status('revoked-token')).toBe(200);
      writeFileSync(webhooks, '[{"url": "half-written');
      writeFileSync(tokens, JSON.stringify([{ token: 'kept-token', tenant: 'acme' }]));
      service.child.kill('SIGHUP');
      await vi.waitFor(() => expect(bySighup('webhook subscriptions reload failed; the current webhook subscriptions stay in use')).toBeDefined(), {
        timeout: 5_000,
      });
      expect(String(bySighup('webhook subscriptions reload failed; the current webhook subscriptions stay in use')!['error'])).toContain(
        `PLANT_STORE_WEBHOOKS_FILE (--webhooks-file): ${webhooks}`,
      );
      expect(bySighup('tokens reloaded')).toMatchObject({ level: 'info', added: 0, removed: 1, total: 1 });
      expect(await status('revoked-token')).toBe(401);
      expect(await status('kept-token')).toBe(200);
      // The webhooks file's last good set still receives new plants.
      expect(await createPlant(service.url, 'kept-token', 1)).toBe(200);
      await vi.waitFor(() => expect(received()).toEqual(['/kept']), { timeout: 5_000 });
    } finally {
      expect((await service.stop()).code).toBe(0);
      await receiver.close();
    }
  });
});

// A slow start: the migration waits for an advisory lock this test holds, so
// the tokens file changes (and SIGHUP comes) while storage opens. Both must
// apply once the service serves, though the file watcher saw the change
// before there was anything to reload (and will not see it again).
describe.skipIf(!postgresAvailable)('plant-store serve reloads a file changed while it starts', () => {
  const schemas = testSchemas();
  afterAll(() => schemas.dropAll());

  it('revokes a token removed from the tokens file while the storage migrates', async () => {
    const schema = schemas.next();
    const file = join(dir, 'start-up-tokens.json');
    writeFileSync(
      file,
      JSON.stringify([
        { token: 'revoked-token', tenant: 'acme' },
        { token: 'kept-token', tenant: 'acme' },
      ]),
    );
    await withClient(async (lock) => {
      const key = advisoryLockKey(`plant-store migrations of schema ${schema}`).toString();
      await lock.query('SELECT pg_advisory_lock($1::bigint)', [key]);
      const { rows } = await lock.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const service = spawnCli(['serve', '--port', '0', '--storage', 'postgres', '--db-schema', schema, '--tokens-file', file], {
        env: { PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL },
      });
      try {
        // The service is in its migration, waiting for this session's lock.
        const waiting = async () => (await lock.query('SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [rows[0]!.pid])).rowCount === 1;
        await vi.waitFor(async () => expect(await waiting()).toBe(true), { timeout: 15_000, interval: 50 });
        writeFileSync(file, JSON.stringify([{ token: 'kept-token', tenant: 'acme' }]));
        service.child.kill('SIGHUP');
        // Long enough for the watcher (it polls every second) and the signal handler to see the change while the service still starts.
        await sleep(2_500);
        expect(service.stdout()).not.toMatch(READY_LINE);
        await lock.query('SELECT pg_advisory_unlock($1::bigint)', [key]);
        const url = (await service.waitForStdout(READY_LINE))[1]!;
        const status = (token: string) => listStatus(url, token);
        const reloads = () => service.logs().filter((line) => line['msg'] === 'tokens reloaded');
        const triggers = [`${file} changed during start-up`, 'SIGHUP during start-up'];
        await vi.waitFor(() => expect(reloads().map((line) => line['trigger'])).toEqual(expect.arrayContaining(triggers)), { timeout: 5_000 });
        expect(reloads()[0]).toMatchObject({ removed: 1, total: 1 });
        expect(await status('revoked-token')).toBe(401);
        expect(await status('kept-token')).toBe(200);
      } finally {
        expect((await service.stop()).code).toBe(0);
      }
    });
  });
});
