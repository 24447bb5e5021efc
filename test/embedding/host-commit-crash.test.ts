import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresStorage } from '@plant-store/storage-postgres';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { runNodeScript } from '../support/node-script.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import type { Storage } from '@plant-store/core/adapter';
import { startReceiver } from '../support/webhook-receiver.js';
import { embeddedStore, hookedIds } from './embedded-store.js';

/*
 * A host process commits its transaction with a plant in it and is SIGKILLed at once, before it could tell the store
 * (no committed(), no dispatcher): the delivery was committed with the plant, so a store started afterwards sends it.
 */

const dir = mkdtempSync(join(tmpdir(), 'plant-store-host-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the host's script, given the subscriptions to start its store with as JSON; the script must commit plant 7 and
 * kill itself. Checks it did, then starts a store on what it wrote, which must send that plant's delivery.
 */
async function deliversAfterKill(hostScript: (subscriptions: string) => string, reopen: () => Promise<Storage>): Promise<void> {
  const receiver = await startReceiver();
  try {
    const run = await runNodeScript(hostScript(JSON.stringify([{ url: receiver.url('/hook'), secret: receiver.secret }])));
    expect({ stderr: run.stderr, code: run.code }).toEqual({ stderr: '', code: null });
    expect(run.stdout).toBe('committed\n');
    const { store } = embeddedStore(await reopen(), receiver);
    try {
      await receiver.waitFor(1, { path: '/hook' });
      expect(hookedIds(receiver)).toEqual(['7']);
    } finally {
      await store.close();
    }
  } finally {
    await receiver.close();
  }
}

describe('SIGKILL right after the host’s commit', () => {
  it('loses no delivery on SQLite (better-sqlite3 db.transaction)', async () => {
    const file = join(dir, 'app.db');
    await deliversAfterKill(
      (subscriptions) => `
        const { default: Database } = await import('better-sqlite3');
        const { createPlantStore } = await import('@plant-store/core');
        const { sqliteStorage } = await import('@plant-store/storage-sqlite');
        const db = new Database(${JSON.stringify(file)});
        db.pragma('journal_mode = WAL');
        db.pragma('busy_timeout = 2000');
        const store = createPlantStore({
          storage: await sqliteStorage({ database: db }),
          webhooks: { subscriptions: ${subscriptions} },
        });
        const tx = store.inTransaction(db);
        db.transaction(() => tx.plants.createSync({ subject: 'h', tenant: 'acme', scopes: ['plants:write'] }, { id: 7, name: 'Fern' }))();
        process.stdout.write('committed\\n', () => process.kill(process.pid, 'SIGKILL'));
      `,
      () => sqliteStorage({ path: file }),
    );
    // A fresh Node process loading the TypeScript sources takes a while on busy cores.
  }, 90_000);

  describe.skipIf(!postgresAvailable)('on PostgreSQL', () => {
    const schemas = testSchemas();
    afterAll(() => schemas.dropAll());

    it('loses no delivery (a pg client between BEGIN and COMMIT)', async () => {
      const schema = schemas.next();
      await deliversAfterKill(
        (subscriptions) => `
          const { default: pg } = await import('pg');
          const { createPlantStore } = await import('@plant-store/core');
          const { postgresStorage } = await import('@plant-store/storage-postgres');
          const pool = new pg.Pool({ connectionString: ${JSON.stringify(TEST_DATABASE_URL)} });
          const store = createPlantStore({
            storage: await postgresStorage({ pool, schema: ${JSON.stringify(schema)} }),
            webhooks: { subscriptions: ${subscriptions} },
          });
          const client = await pool.connect();
          await client.query('BEGIN');
          await store.inTransaction(client).plants.create({ subject: 'h', tenant: 'acme', scopes: ['plants:write'] }, { id: 7, name: 'Fern' });
          await client.query('COMMIT');
          process.stdout.write('committed\\n', () => process.kill(process.pid, 'SIGKILL'));
        `,
        () => postgresStorage({ connectionString: TEST_DATABASE_URL, schema }),
      );
    }, 90_000);
  });
});
