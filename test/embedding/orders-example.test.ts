import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { runNodeScript } from '../support/node-script.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas, withClient } from '../support/postgres.js';
import { startReceiver } from '../support/webhook-receiver.js';

const EXAMPLE = new URL('../../examples/orders-with-plants/main.ts', import.meta.url);

describe.skipIf(!postgresAvailable)('the orders example (examples/orders-with-plants)', () => {
  const schemas = testSchemas();
  afterAll(() => schemas.dropAll());

  it('places an order with its plant in one transaction, and a failed order leaves no plant and sends nothing', async () => {
    const receiver = await startReceiver();
    const [app, store] = [schemas.next(), schemas.next()];
    try {
      await withClient((client) => client.query(`CREATE SCHEMA ${pg.escapeIdentifier(app)}`));
      const env = {
        DATABASE_URL: TEST_DATABASE_URL,
        WEBHOOK_URL: receiver.url('/hook'),
        WEBHOOK_SECRET: receiver.secret,
        APP_SCHEMA: app,
        STORE_SCHEMA: store,
      };
      const run = await runNodeScript(`Object.assign(process.env, ${JSON.stringify(env)}); await import(${JSON.stringify(EXAMPLE.href)});`);
      expect(run.stderr).toBe('');
      expect(run.stdout.split('\n')).toEqual([
        'event: plant 1 created',
        'order 1 placed with plant 1 (Fern)',
        expect.stringMatching(/^order refused: duplicate key value violates unique constraint/),
        'plant 2 is absent',
        '',
      ]);
      expect(run.code).toBe(0);
      // The example waited for its delivery: exactly the committed plant's.
      expect(receiver.at('/hook')).toHaveLength(1);
      expect(receiver.at('/hook')[0]!.body).toContain('"Fern"');
      const { rows } = await withClient((client) => client.query(`SELECT id, plant_id FROM ${pg.escapeIdentifier(app)}.orders`));
      expect(rows).toEqual([{ id: '1', plant_id: '1' }]);
    } finally {
      await receiver.close();
    }
  });

  it('is the example the docs show', () => {
    const docs = readFileSync(new URL('../../docs/embedding.md', import.meta.url), 'utf8');
    const source = readFileSync(EXAMPLE, 'utf8');
    const shown = /async function placeOrder[\s\S]*?\n}\n/.exec(source)![0];
    expect(docs).toContain(shown);
  });
});
