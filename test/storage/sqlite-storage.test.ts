import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { describeStorageConformance } from '@plant-store/core/testing';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-sqlite-conformance-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

let files = 0;
let path = '';
describeStorageConformance('sqlite', {
  create: () => sqliteStorage({ path: (path = join(folder, `store-${files++}.db`)) }),
  capabilities: { persistent: { reopen: () => sqliteStorage({ path }) } },
});
