import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { describeStorageConformance } from '@plant-store/core/testing';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-sqlite-conformance-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const BetterSqlite3 = createRequire(new URL('../../packages/storage-sqlite/package.json', import.meta.url))('better-sqlite3') as new (
  path: string,
) => {
  prepare(sql: string): { run(...parameters: unknown[]): unknown };
  close(): void;
};

let files = 0;
let path = '';
describeStorageConformance('sqlite', {
  create: () => sqliteStorage({ path: (path = join(folder, `store-${files++}.db`)) }),
  capabilities: {
    persistent: { reopen: () => sqliteStorage({ path }) },
    parkedLimit: (parkedLimit) => sqliteStorage({ path: join(folder, `store-${files++}.db`), parkedLimit }),
    // A second connection to the file, as another process's bug would write.
    async dropDueTime(_storage, id) {
      const db = new BetterSqlite3(path);
      try {
        db.prepare('UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE id = ?').run(id);
      } finally {
        db.close();
      }
    },
  },
});

// The same contract on a host's connection, which the storage neither configures nor closes: after close() its
// members must refuse as they do on a connection of their own.
const HostDatabase = createRequire(new URL('../../packages/storage-sqlite/package.json', import.meta.url))('better-sqlite3') as new (
  path: string,
) => { pragma(source: string): unknown; close(): void };
const hostDatabases: Array<{ close(): void }> = [];
afterAll(() => {
  for (const database of hostDatabases) database.close();
});
const hostDatabase = () => {
  const database = new HostDatabase(join(folder, `host-${hostDatabases.length}.db`));
  hostDatabases.push(database);
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 2000');
  return database as never;
};
describeStorageConformance('sqlite on a host connection', {
  create: () => sqliteStorage({ database: hostDatabase() }),
  capabilities: { parkedLimit: (parkedLimit) => sqliteStorage({ database: hostDatabase(), parkedLimit }) },
});
