import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPlantStore } from '@plant-store/core';
import { postgresStorage } from '@plant-store/storage-postgres';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas, withClient } from '../support/postgres.js';
import { runCli, startServe } from '../support/cli-process.js';
import { runCliInProcess } from '../support/run-cli-in-process.js';

// `plant-store portal-link` against a running service on the same SQLite
// file, both as real processes: mint a link, sign in with it over HTTP,
// read-only links, list, revoke (then 401), and argument mistakes.

const dir = mkdtempSync(join(tmpdir(), 'plant-store-portal-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LINK = /^(http:\/\/\S+)\/portal#token=(psl_[A-Za-z0-9_-]{16}_[A-Za-z0-9_-]{43})\n$/;

describe('plant-store portal-link', () => {
  it('mints links a running service accepts, lists and revokes them', async () => {
    const db = join(dir, 'plant-store.db');
    const env = { PLANT_STORE_DB: db, PLANT_STORE_TOKENS: 'owner-token=acme' };
    const service = await startServe(['--port=0'], { env });
    try {
      const call = (method: string, path: string, token: string, body?: unknown) =>
        fetch(`${service.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });

      const minted = await runCli(['portal-link', '--tenant', 'acme', '--base-url', `${service.url}/`], { env });
      expect(minted.stderr).toBe('');
      expect(minted.code).toBe(0);
      const [, base, token] = LINK.exec(minted.stdout)!;
      expect(base).toBe(service.url);
      const session = await call('GET', '/webhooks/session', token!);
      expect(session.status).toBe(200);
      const body = (await session.json()) as { subject: string; scopes: string[]; expiresAt: string };
      expect(body).toMatchObject({ tenant: 'acme', scopes: ['webhooks:read', 'webhooks:write'] });
      // One hour by default.
      expect(Math.abs(Date.parse(body.expiresAt) - Date.now() - 3_600_000)).toBeLessThan(60_000);
      expect((await call('POST', '/webhooks/endpoints', token!, { url: 'https://example.com/portal' })).status).toBe(201);
      expect((await call('GET', '/plants', token!)).status).toBe(403);

      const readOnly = await runCli(['portal-link', '--tenant=acme', '--read-only', '--expires=2d', `--base-url=${service.url}`], { env });
      const [, , readToken] = LINK.exec(readOnly.stdout)!;
      expect((await call('GET', '/webhooks/endpoints', readToken!)).status).toBe(200);
      expect((await call('POST', '/webhooks/endpoints', readToken!, { url: 'https://example.com/x' })).status).toBe(403);
      const readSession = (await (await call('GET', '/webhooks/session', readToken!)).json()) as { expiresAt: string };
      expect(Math.abs(Date.parse(readSession.expiresAt) - Date.now() - 2 * 86_400_000)).toBeLessThan(60_000);

      const listed = await runCli(['portal-link', '--list', '--tenant', 'acme'], { env });
      expect(listed.code).toBe(0);
      const linkId = token!.slice(4, 20);
      const lines = listed.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^ID\s+TENANT\s+ACCESS\s+EXPIRES\s+REVOKED$/);
      expect(lines.slice(1).map((line) => line.split(/\s+/).slice(0, 3))).toEqual([
        [readToken!.slice(4, 20), 'acme', 'read-only'],
        [linkId, 'acme', 'read-write'],
      ]);
      expect(listed.stdout).not.toContain(token!.slice(21));

      const revoked = await runCli(['portal-link', '--revoke', linkId], { env });
      expect(revoked).toMatchObject({ code: 0, stderr: '' });
      const refused = await call('GET', '/webhooks/session', token!);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('invalid_token');
      expect((await call('GET', '/webhooks/session', readToken!)).status).toBe(200);
      const again = await runCli(['portal-link', '--revoke', linkId], { env });
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/^error: no live portal link with id /);
    } finally {
      await service.stop();
    }
  });

  it('defaults the base URL to http://<HOST>:<PORT>', async () => {
    const env = { PLANT_STORE_DB: join(dir, 'defaults.db'), HOST: '::1', PORT: '9999' };
    // The commands never create a database: let a service create the file first.
    const service = await startServe(['--port=0'], { env: { ...env, PORT: '0', HOST: '127.0.0.1', PLANT_STORE_TOKENS: 't=a' } });
    await service.stop();
    const minted = await runCli(['portal-link', '--tenant', 'acme'], { env });
    expect(minted.stdout).toMatch(/^http:\/\/\[::1\]:9999\/portal#token=psl_/);
  });

  it('needs --base-url or PLANT_STORE_PUBLIC_URL when the listen address says nothing; warns of a tenant nobody knows', async () => {
    const env = { PLANT_STORE_DB: join(dir, 'guess.db') };
    const service = await startServe(['--port=0'], { env: { ...env, PLANT_STORE_TOKENS: 't=acme' } });
    await service.stop();
    for (const [extra, why] of [
      [{ HOST: '0.0.0.0', PORT: '8080' }, 'HOST is 0.0.0.0'],
      [{ HOST: '::', PORT: '8080' }, 'HOST is ::'],
      [{}, 'PORT is not set'],
    ] as const) {
      const exit = await runCli(['portal-link', '--tenant', 'acme'], { env: { ...env, ...extra } });
      expect(exit).toMatchObject({ code: 2, stdout: '' });
      expect(exit.stderr).toBe(
        `error: cannot tell where tenants reach the service (${why}): give --base-url or set PLANT_STORE_PUBLIC_URL (see plant-store portal-link --help)\n`,
      );
    }
    const publicUrl = await runCli(['portal-link', '--tenant', 'acme'], {
      env: { ...env, HOST: '0.0.0.0', PLANT_STORE_PUBLIC_URL: 'https://plants.example.com/api/', PLANT_STORE_TOKENS: 't=acme' },
    });
    expect(publicUrl).toMatchObject({ code: 0, stderr: '' });
    expect(publicUrl.stdout).toMatch(/^https:\/\/plants\.example\.com\/api\/portal#token=psl_\S+\n$/);

    const typo = await runCli(['portal-link', '--tenant', 'acmee', '--base-url', 'https://plants.example.com'], {
      env: { ...env, PLANT_STORE_TOKENS: 't=acme' },
    });
    expect(typo.code).toBe(0);
    expect(typo.stdout).toMatch(/^https:\/\/plants\.example\.com\/portal#token=psl_/);
    expect(typo.stderr).toMatch(
      /^warning: tenant acmee has no webhook endpoint, nor a token in PLANT_STORE_TOKENS \(--tokens\) or PLANT_STORE_TOKENS_FILE \(--tokens-file\) here: check its spelling \(the link works all the same\)\n$/,
    );

    const id = LINK.exec(publicUrl.stdout.replace('https://plants.example.com/api', 'http://x'))![2]!.slice(4, 20);
    const revoked = await runCli(['portal-link', '--revoke', id], { env });
    expect(revoked).toMatchObject({ code: 0, stdout: `revoked portal link ${id}\n`, stderr: '' });
  });

  it.each([
    [['portal-link'], /needs --tenant/],
    [['portal-link', '--tenant', 'acme', '--expires', '8d'], /--expires must be a duration .*at most 7d/],
    [['portal-link', '--tenant', 'acme', '--expires', 'soon'], /--expires/],
    [['portal-link', '--tenant', 'acme', '--base-url', 'ftp://x'], /--base-url/],
    [['portal-link', '--revoke', 'abc', '--tenant', 'acme'], /--revoke does not take --tenant/],
    [['portal-link', '--tenant', 'acme', '--colour'], /unknown option '--colour'/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const exit = await runCli(args, { env: { PLANT_STORE_DB: join(dir, 'never.db') } });
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(message);
    expect(exit.stderr).toMatch(/see plant-store portal-link --help/);
  });

  it('--help explains it; a missing database file is an error, not a new database', async () => {
    const help = await runCli(['portal-link', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: plant-store portal-link --tenant/);
    const missing = await runCli(['portal-link', '--tenant', 'acme', '--base-url', 'http://x'], { env: { PLANT_STORE_DB: join(dir, 'missing.db') } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/does not exist/);
  });
});

describe.skipIf(!postgresAvailable)('plant-store portal-link on PostgreSQL (storage chosen as for serve)', () => {
  const schemas = testSchemas();
  afterAll(() => schemas.dropAll());

  const run = (args: string[], env: NodeJS.ProcessEnv) => runCliInProcess(['portal-link', ...args], env);

  it('mints a link a store on the same schema accepts, then revokes it', async () => {
    const schema = schemas.next();
    const env = { PLANT_STORE_STORAGE: 'postgres', PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL, PLANT_STORE_DB_SCHEMA: schema, PLANT_STORE_TOKENS: 't=acme' };
    // The service creates the schema; operator commands only use it.
    const store = createPlantStore({ storage: await postgresStorage({ connectionString: TEST_DATABASE_URL, schema }) });
    try {
      const minted = await run(['--tenant', 'acme', '--expires', '30m', '--base-url', 'https://plants.example.com/api'], env);
      expect(minted).toMatchObject({ status: 0, stderr: '' });
      const token = /^https:\/\/plants\.example\.com\/api\/portal#token=(psl_\S+)\n$/.exec(minted.stdout)![1]!;
      const principal = await store.authenticate(token);
      expect(principal).toMatchObject({ tenant: 'acme', scopes: ['webhooks:read', 'webhooks:write'] });
      expect(Math.abs(principal.expiresAt! - Date.now() - 30 * 60_000)).toBeLessThan(60_000);
      const revoked = await run(['--revoke', token.slice(4, 20), '--storage', 'postgres', '--database-url', TEST_DATABASE_URL, '--db-schema', schema], {});
      expect(revoked).toMatchObject({ status: 0, stderr: '' });
      await expect(store.authenticate(token)).rejects.toMatchObject({ reason: 'invalid_token' });
    } finally {
      await store.close();
    }
  });

  it('operator commands refuse a missing or out-of-date schema and create nothing', async () => {
    const typo = schemas.next();
    const flags = ['--storage', 'postgres', '--database-url', TEST_DATABASE_URL, '--db-schema', typo];
    for (const args of [
      ['portal-link', '--tenant', 'acme', '--base-url', 'http://plants.example.com'],
      ['webhooks', 'list'],
    ]) {
      const exit = await runCli([...args, ...flags]);
      expect(exit).toMatchObject({ code: 1, stdout: '' });
      expect(exit.stderr).toMatch(
        new RegExp(`^error: PLANT_STORE_DB_SCHEMA \\(--db-schema\\): .*schema ${typo} does not exist or holds no Plant Store tables: migrate it: .*\\n$`),
      );
    }
    const created = await withClient((client) => client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [typo]));
    expect(created.rowCount).toBe(0);

    const old = schemas.next();
    await (await postgresStorage({ connectionString: TEST_DATABASE_URL, schema: old })).close();
    await withClient((client) => client.query(`DELETE FROM "${old}".kysely_migration WHERE name = (SELECT max(name) FROM "${old}".kysely_migration)`));
    const exit = await runCli(['webhooks', 'list', '--storage', 'postgres', '--database-url', TEST_DATABASE_URL, '--db-schema', old]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(
      /^error: PLANT_STORE_DB_SCHEMA \(--db-schema\): .*schema \S+ is at version \S+, this plant-store expects \S+: migrate it: open the storage once with migrate: true \(plant-store serve does\).*\n$/,
    );
  });
});
