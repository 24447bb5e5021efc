import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BACKSTOP_PAGES, BackgroundCheckpoints, WRITES_BEFORE_WORKER } from './background-checkpoints.js';
import { sqliteStorage } from './sqlite-storage.js';

const folders: string[] = [];
const databases: BetterSqlite3.Database[] = [];

afterEach(() => {
  for (const db of databases.splice(0)) if (db.open) db.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function freshPath(): string {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-checkpoints-'));
  folders.push(folder);
  return join(folder, 'plants.db');
}

/** A WAL database whose own connection never checkpoints: only the worker can copy the log into the file. */
function walDatabase(path: string): BetterSqlite3.Database {
  const db = new BetterSqlite3(path);
  databases.push(db);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  return db;
}

describe('BackgroundCheckpoints', () => {
  it('copies the log into the database file from the worker once enough writes were noted, and raises the main connection’s own checkpoint to the backstop', async () => {
    const path = freshPath();
    const db = walDatabase(path);
    const checkpoints = new BackgroundCheckpoints(db, { path, busyTimeoutMs: 1000 });
    const insert = db.prepare('INSERT INTO notes (text) VALUES (?)');
    const sizeBefore = statSync(path).size;
    for (let index = 0; index < WRITES_BEFORE_WORKER * 2; index++) {
      insert.run('x'.repeat(2000));
      checkpoints.noteWrite();
    }
    // Nothing on the main connection checkpoints (autocheckpoint 0 until the worker is ready, then the backstop): growth is the worker's.
    await vi.waitFor(() => expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES), { timeout: 10_000 });
    insert.run('one more');
    checkpoints.noteWrite();
    await vi.waitFor(() => expect(statSync(path).size).toBeGreaterThan(sizeBefore + 100_000), { timeout: 10_000 });
    await checkpoints.close();
    await checkpoints.close();
    // The worker let go of the file: this connection is the last, so closing it checkpoints and removes the log.
    db.close();
    expect(statSync(`${path}-wal`, { throwIfNoEntry: false })).toBeUndefined();
    const reopened = new BetterSqlite3(path, { readonly: true });
    expect(reopened.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(WRITES_BEFORE_WORKER * 2 + 1);
    reopened.close();
  });

  it('starts no worker for a handful of writes', async () => {
    const path = freshPath();
    const db = walDatabase(path);
    const checkpoints = new BackgroundCheckpoints(db, { path, busyTimeoutMs: 1000 });
    const sizeBefore = statSync(path).size;
    for (let index = 0; index < WRITES_BEFORE_WORKER - 1; index++) {
      db.prepare('INSERT INTO notes (text) VALUES (?)').run('x'.repeat(2000));
      checkpoints.noteWrite();
    }
    await new Promise((resolveLater) => setTimeout(resolveLater, 200));
    expect(statSync(path).size).toBe(sizeBefore);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    await checkpoints.close();
  });

  it('gives checkpoints back to the main connection when the worker cannot serve the database', async () => {
    const path = freshPath();
    const db = walDatabase(path);
    const onFailure = vi.fn();
    // The worker is pointed at a file it cannot open.
    const checkpoints = new BackgroundCheckpoints(db, { path: join(path, 'not-a-folder', 'x.db'), busyTimeoutMs: 1000, onFailure });
    for (let index = 0; index < WRITES_BEFORE_WORKER; index++) checkpoints.noteWrite();
    await vi.waitFor(() => expect(onFailure).toHaveBeenCalledTimes(1), { timeout: 10_000 });
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    // Further writes change nothing, and close needs no worker.
    for (let index = 0; index < WRITES_BEFORE_WORKER; index++) checkpoints.noteWrite();
    await checkpoints.close();
    expect(onFailure).toHaveBeenCalledTimes(1);
  });

  it('serves the storage: many creates reach the database file while it is open, and close leaves no log behind', async () => {
    const path = freshPath();
    const storage = await sqliteStorage({ path });
    const sizeBefore = statSync(path).size;
    for (let id = 1n; id <= 300n; id++) await storage.plants.create('t', { id, name: `plant ${id}` }, []);
    await vi.waitFor(() => expect(statSync(path).size).toBeGreaterThan(sizeBefore), { timeout: 10_000 });
    await storage.close();
    expect(statSync(`${path}-wal`, { throwIfNoEntry: false })).toBeUndefined();
  });
});
