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
