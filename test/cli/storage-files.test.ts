// The service over SQLite when its database files are deleted while it runs,
// or are read-only at start: the real CLI process, real files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { makeReadOnly, type ReadOnlyPath } from '../support/read-only-path.js';
import { runCli, startServe, type ServeProcess } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';

const TOKEN = 'storage-files-token';
const ENV = { PLANT_STORE_TOKENS: `${TOKEN}=acme` };
const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-files-'));
const readOnly: ReadOnlyPath[] = [];
const running: ServeProcess[] = [];
afterEach(async () => {
  for (const path of readOnly.splice(0)) path.restore();
  await Promise.all(running.splice(0).map((service) => service.stop('SIGKILL').catch(() => {})));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const freshDb = () => join(dir, `plants-${files++}.db`);

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

const readyz = async (service: ServeProcess) => (await fetch(`${service.url}/readyz`)).status;

describe('serve on SQLite whose database files are deleted while it runs', () => {
  it('goes unready, answers writes with 503, says why in the log once, and loses nothing it acknowledged', async () => {
    const db = freshDb();
    const service = await serve(db);
    expect(await create(service, 1)).toBe(200);
    expect(await readyz(service)).toBe(200);

    for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });

    for (let probe = 0; probe < 3; probe++) expect(await readyz(service)).toBe(503);
    expect([await create(service, 2), await create(service, 3)]).toEqual([503, 503]);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    const notReady = service.logs().filter((log) => log['msg'] === 'storage is not ready');
    expect(notReady).toEqual([
      expect.objectContaining({
        level: 'warn',
        error: `sqlite storage is not ready: the database file ${db} was deleted while open; what is written now would be lost at the next start (restart the service)`,
      }),
    ]);
    // A request's log line is written after its response (lines leave once per turn of the event loop).
    const failedWrites = () => service.logs().filter((log) => log['msg'] === 'request failed');
    await eventually(() => failedWrites().length >= 2, 'the log lines of both failed writes');
    expect(failedWrites()).toHaveLength(2);
    expect(String(failedWrites()[0]!['error'])).toContain(`sqlite storage could not create the plant: the database file ${db} was deleted while open`);
    expect((await service.stop()).code).toBe(0);

    // Restarted on the same path: a new, empty database; no acknowledged write went missing (none was acknowledged after the deletion).
    const restarted = await serve(db);
    expect(await readyz(restarted)).toBe(200);
    expect(await listIds(restarted)).toEqual([]);
    expect(await create(restarted, 4)).toBe(200);
    expect(await listIds(restarted)).toEqual([4]);
  });
});

describe('serve on SQLite whose write-ahead log alone is deleted while it runs', () => {
  it('answers every later write with 503, and a kill -9 and restart keeps what it acknowledged before and none of them', async () => {
    const db = freshDb();
    const service = await serve(db);
    expect(await create(service, 1)).toBe(200);

    rmSync(`${db}-wal`);

    const statuses: number[] = [];
    for (let id = 2; id <= 21; id++) statuses.push(await create(service, id));
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 503));
    expect(await readyz(service)).toBe(503);
    const failedWrites = service.logs().filter((log) => log['msg'] === 'request failed');
    expect(String(failedWrites[0]!['error'])).toContain(`sqlite storage could not create the plant: the write-ahead log ${db}-wal was deleted while open`);
    expect((await service.stop('SIGKILL')).signal).toBe('SIGKILL');

    // Plant 1 was committed to the deleted log only; it was copied into the
    // database as soon as the deletion was noticed, so the kill -9 did not
    // take it. None of the refused writes appears.
    const restarted = await serve(db);
    expect(await readyz(restarted)).toBe(200);
    expect(await listIds(restarted)).toEqual([1]);
    expect(await create(restarted, 22)).toBe(200);
    expect(await listIds(restarted)).toEqual([1, 22]);
  });
});

describe('serve on a read-only SQLite database', () => {
  it('exits with status 2 and one line naming the database and the cause', async (context) => {
    const db = freshDb();
    await (await sqliteStorage({ path: db })).close();
    const locked = makeReadOnly(db);
    if (typeof locked === 'string') return context.skip(locked);
    readOnly.push(locked);

    const result = await runCli(['serve', '--port=0', `--db=${db}`], { env: ENV });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const escaped = db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: PLANT_STORE_DB \\(--db\\): cannot open ${escaped}: sqlite storage could not open ${escaped}: ` +
          `the database is read-only: ${escaped} is not writable \\((EPERM: operation not permitted|EACCES: permission denied)\\)\\n$`,
      ),
    );
  });
});
