import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '@plant-store/core/adapter';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../../../test/support/postgres.js';
import { connectionConfig, createPool } from './postgres-connection.js';
import { parkedBound } from './parked-deliveries.js';
import { PostgresPlantRepository } from './postgres-plant-repository.js';
import { postgresStorage } from './postgres-storage.js';
import { QueryRunner, type PreparedStatement } from './query-runner.js';
import { tablesIn } from './tables.js';

/** A runner that keeps the text of every statement it is given. */
class CountingRunner extends QueryRunner {
  readonly statements: string[] = [];

  override rows<Row>(action: string, statement: string | PreparedStatement, parameters: readonly unknown[]): Promise<Row[]> {
    this.statements.push(typeof statement === 'string' ? statement : statement.text);
    return super.rows<Row>(action, statement, parameters);
  }

  override changes(action: string, statement: string | PreparedStatement, parameters: readonly unknown[]): Promise<number> {
    this.statements.push(typeof statement === 'string' ? statement : statement.text);
    return super.changes(action, statement, parameters);
  }
}

const T0 = 1_700_000_000_000;

describe.skipIf(!postgresAvailable)('postgres plant write fan-out', () => {
  const schemas = testSchemas();
  const schema = schemas.next();
  let storage: Storage | undefined;
  let runner: CountingRunner | undefined;

  beforeAll(async () => {
    storage = await postgresStorage({ connectionString: TEST_DATABASE_URL, schema });
    const config = connectionConfig({ connectionString: TEST_DATABASE_URL, connectTimeoutMs: 5000, queryTimeoutMs: 10_000 });
    runner = new CountingRunner(createPool(config, 2), 11_000);
  });
  afterAll(async () => {
    await Promise.all([storage?.close(), runner?.close()]);
    await schemas.dropAll();
  });

  it('writes the plant and the deliveries of every subscribed endpoint in one statement, not one per endpoint', async () => {
    for (const id of ['ep_a', 'ep_b', 'ep_c']) {
      const endpoint = {
        id,
        tenant: 'acme',
        url: `https://${id}.example/hook`,
        eventTypes: ['plant.created' as const],
        secret: 'whsec_c2VjcmV0',
        createdAt: T0,
      };
      await storage!.endpoints.create(endpoint, 50);
    }
    let announced = 0;
    const plants = new PostgresPlantRepository(runner!, tablesIn(schema), () => announced++, parkedBound(tablesIn(schema), 10_000));
    const event = { eventType: 'plant.created' as const, payload: '{"id":"1","name":"fern"}', createdAt: T0 };
    await expect(plants.create('acme', { id: 1n, name: 'fern' }, [], event)).resolves.toMatchObject({ created: true });
    expect(runner!.statements).toHaveLength(1);
    expect(announced).toBe(1);
    expect((await storage!.outbox.list())!.map((delivery) => delivery.endpointId).sort()).toEqual(['ep_a', 'ep_b', 'ep_c']);
  });

  it('parks for a disabled endpoint in the same statement, then bounds its parked messages in one more', async () => {
    await storage!.endpoints.setStatus('ep_b', 'disabled', 'off', T0);
    runner!.statements.length = 0;
    const plants = new PostgresPlantRepository(runner!, tablesIn(schema), () => {}, parkedBound(tablesIn(schema), 10_000));
    const event = { eventType: 'plant.created' as const, payload: '{"id":"2","name":"ivy"}', createdAt: T0 + 1 };
    await expect(plants.create('acme', { id: 2n, name: 'ivy' }, [], event)).resolves.toMatchObject({ created: true });
    expect(runner!.statements).toHaveLength(2);
    expect(runner!.statements[1]).toContain('parked_dropped');
    const fanned = (await storage!.outbox.list())!.filter((delivery) => delivery.payload === event.payload);
    expect(fanned.map((delivery) => `${delivery.endpointId} ${delivery.status}`).sort()).toEqual(['ep_a pending', 'ep_b parked', 'ep_c pending']);
  });
});
