import { afterAll, describe, expect, it } from 'vitest';
import { StorageError } from '@plant-store/core';
import type { Storage } from '@plant-store/core/adapter';
import { sampleDelivery as delivery, samplePlant as plant } from '@plant-store/core/testing';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../../../test/support/postgres.js';
import { postgresStorage } from './postgres-storage.js';

const T0 = 1_700_000_000_000;

describe.skipIf(!postgresAvailable)('postgres attempt records batched together', () => {
  const schemas = testSchemas();
  let storage: Storage | undefined;
  afterAll(async () => {
    await storage?.close();
    await schemas.dropAll();
  });

  it('fails only the record the database refuses; the others of its batch are recorded', async () => {
    storage = await postgresStorage({ connectionString: TEST_DATABASE_URL, schema: schemas.next() });
    const ids = ['r1', 'r2', 'r3'];
    await storage.plants.create(
      't',
      plant(1n, 'p'),
      ids.map((id) => delivery(id, { createdAt: T0 })),
    );
    expect(await storage.outbox.claimDue({ owner: 'a', now: T0, leaseMs: 30_000, limit: 10 })).toHaveLength(3);
    const at = { at: T0 + 1, durationMs: 2 };
    // Made in one turn, so they share one statement; a status beyond the column's integer range is refused by the database.
    const results = await Promise.allSettled([
      storage.outbox.recordAttempt('r1', 'a', { ...at, statusCode: 200 }, { status: 'delivered' }),
      storage.outbox.recordAttempt('r2', 'a', { ...at, statusCode: 2 ** 31 }, { status: 'delivered' }),
      storage.outbox.recordAttempt('r3', 'a', { ...at, statusCode: 200 }, { status: 'delivered' }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(StorageError);
    expect((await storage.outbox.get('r1'))?.status).toBe('delivered');
    expect((await storage.outbox.get('r2'))?.status).toBe('pending');
    expect((await storage.outbox.get('r3'))?.status).toBe('delivered');
  });
});
