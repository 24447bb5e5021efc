// plant-store backup: an online copy of a running service's SQLite database
// (the real CLI processes, real files, creates streaming over HTTP meanwhile).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli-process.js';
import { runCliInProcess } from '../support/run-cli-in-process.js';

/** The SQLite driver of the SQLite adapter (the test suites do not depend on it themselves); only what these tests use. */
interface SqliteFile {
  pragma(source: string, options: { simple: true }): unknown;
  close(): void;
}
const BetterSqlite3 = createRequire(new URL('../../packages/storage-sqlite/package.json', import.meta.url))('better-sqlite3') as new (
  path: string,
  options?: { readonly?: boolean },
) => SqliteFile;

const TOKEN = 'backup-token';
const ENV = { PLANT_STORE_TOKENS: `${TOKEN}=acme` };
const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-backup-'));
const running: ServeProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((service) => service.stop('SIGKILL').catch(() => {})));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function serve(db: string): Promise<ServeProcess> {
  const service = await startServe(['--port=0', `--db=${db}`], { env: ENV });
  running.push(service);
  return service;
}

async function create(service: ServeProcess, id: number): Promise<number> {
  const response = await fetch(`${service.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name: `plant ${id}` }),
  });
  await response.text();
  return response.status;
}

async function listIds(service: ServeProcess): Promise<number[]> {
  const response = await fetch(`${service.url}/plants`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return ((await response.json()) as { id: number }[]).map((plant) => plant.id);
}

const backup = (args: string[], env: NodeJS.ProcessEnv = {}) => runCliInProcess(['backup', ...args], env);

describe('plant-store backup', () => {
  it("copies a running service's database mid-stream: the copy is intact, and a service on it lists every plant acknowledged before the backup began", async () => {
    const db = join(dir, 'live.db');
    const copy = join(dir, 'copy.db');
    const service = await serve(db);
    const acknowledged: number[] = [];
    let streaming = true;
    const writers = Array.from({ length: 4 }, async (_, writer) => {
      for (let id = writer + 1; streaming; id += 4) if ((await create(service, id)) === 200) acknowledged.push(id);
    });
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThan(100), { timeout: 30_000, interval: 20 });
    const before = [...acknowledged];
    const result = await runCli(['backup', copy, `--db=${db}`], { env: {} });
    const duringBackup = acknowledged.length;
    streaming = false;
    await Promise.all(writers);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^backed up .*live\.db to .*copy\.db \(\d+ bytes\)\n$/);
    // The service kept acknowledging writes while the backup ran.
    expect(duringBackup).toBeGreaterThan(before.length);
    expect(await create(service, 0)).toBe(200);

    const file = new BetterSqlite3(copy, { readonly: true });
    try {
      expect(file.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      file.close();
    }
    await service.stop();
    const restored = await serve(copy);
    const ids = new Set(await listIds(restored));
    expect(before.filter((id) => !ids.has(id))).toEqual([]);
    // Writable like any database of the service.
    expect(await create(restored, -1)).toBe(200);
  });

  it('refuses PostgreSQL and memory storage with exit 2 and one line that says what to use', async () => {
    const postgres = await backup(['out.db'], { PLANT_STORE_STORAGE: 'postgres' });
    expect(postgres).toMatchObject({ status: 2, stdout: '' });
    expect(postgres.stderr).toContain('pg_dump --schema');
    expect(postgres.stderr.trimEnd().split('\n')).toHaveLength(1);
    const memory = await backup(['out.db', '--storage=memory']);
    expect(memory).toMatchObject({ status: 2, stdout: '' });
    expect(memory.stderr).toContain('memory: it keeps nothing on disk to back up');
  });

  it('rejects bad arguments with exit 2, and fails with exit 1 without a database or onto an existing file', async () => {
    expect(await backup([])).toMatchObject({ status: 2, stderr: expect.stringContaining('backup needs the file to write') });
    expect(await backup(['a.db', 'b.db'])).toMatchObject({ status: 2, stderr: expect.stringContaining("unexpected argument 'b.db'") });
    expect(await backup(['a.db', '--port=1'])).toMatchObject({ status: 2, stderr: expect.stringContaining('unknown option') });
    expect(await backup(['a.db', '--storage=oracle'])).toMatchObject({ status: 2, stderr: expect.stringContaining('PLANT_STORE_STORAGE (--storage)') });
    const missing = await backup([join(dir, 'never.db')], { PLANT_STORE_DB: join(dir, 'missing.db') });
    expect(missing).toMatchObject({ status: 1, stderr: expect.stringContaining('no such database file') });
    const existing = join(dir, 'existing.db');
    writeFileSync(existing, 'keep me');
    const source = join(dir, 'source.db');
    new BetterSqlite3(source).close();
    expect(await backup([existing, `--db=${source}`])).toMatchObject({ status: 1, stderr: expect.stringContaining('the file exists') });
    expect((await backup(['--help'])).stdout).toContain('Usage: plant-store backup <file>');
  });
});
