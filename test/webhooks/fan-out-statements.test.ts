import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createPlantStore } from '@plant-store/core';
import { postgresStorage } from '@plant-store/storage-postgres';
import { acme, globex } from '../support/principals.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';

// One plant write fans out to every endpoint of its tenant in one statement,
// not one per endpoint: the statements PostgreSQL is sent for a create are as
// many with forty endpoints as with one. Counted on the wire, between the
// storage and PostgreSQL, as Execute and simple Query messages of the
// PostgreSQL protocol (the store has no transport: nothing else runs).

/** A pass-through proxy to PostgreSQL that counts the statements clients send. */
async function statementCounter(target: URL): Promise<{ url: string; statements(): number; close(): Promise<void> }> {
  let statements = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((incoming) => {
    const outgoing = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [incoming, outgoing]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    // The first client message (startup) has no type byte; every later one is type, int32 length, body.
    let pending = Buffer.alloc(0);
    let started = false;
    incoming.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const header = started ? 5 : 4;
        if (pending.length < header) break;
        const length = started ? pending.readInt32BE(1) + 1 : pending.readInt32BE(0);
        if (pending.length < length) break;
        if (started && (pending[0] === 0x45 /* E */ || pending[0] === 0x51) /* Q */) statements++;
        // An SSLRequest or GSSENCRequest is followed by another untyped startup message.
        if (!started && !(length === 8 && [80877103, 80877104].includes(pending.readInt32BE(4)))) started = true;
        pending = pending.subarray(length);
      }
      outgoing.write(chunk);
    });
    outgoing.pipe(incoming);
    incoming.on('close', () => outgoing.destroy());
    outgoing.on('close', () => incoming.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    statements: () => statements,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(!postgresAvailable)('fan-out of one plant write (PostgreSQL, on the wire)', () => {
  const schemas = testSchemas();
  afterAll(() => schemas.dropAll());

  it('sends as many statements for a create with forty endpoints as with one', async () => {
    const counter = await statementCounter(new URL(TEST_DATABASE_URL));
    const store = createPlantStore({ storage: await postgresStorage({ connectionString: counter.url, schema: schemas.next() }) });
    try {
      const endpoint = (tenant: typeof acme, n: number) =>
        store.webhooks.endpoints.create(tenant, { url: `https://hooks.example.com/${tenant.tenant}/${n}`, eventTypes: ['plant.created'] });
      await endpoint(globex, 0);
      for (let n = 0; n < 40; n++) await endpoint(acme, n);
      // Warm up each tenant's path (prepared statements, pool connections), then count one create each.
      await store.plants.create(globex, { id: 1, name: 'warm-up' });
      await store.plants.create(acme, { id: 1, name: 'warm-up' });
      const countCreate = async (tenant: typeof acme, id: number) => {
        const before = counter.statements();
        await store.plants.create(tenant, { id, name: `plant ${id}` });
        return counter.statements() - before;
      };
      const oneEndpoint = await countCreate(globex, 2);
      const fortyEndpoints = await countCreate(acme, 2);
      expect(oneEndpoint).toBeGreaterThan(0);
      expect(fortyEndpoints).toBe(oneEndpoint);
      expect(await store.allTenants.webhooks.list({ status: 'pending' })).toHaveLength(2 + 2 * 40);
    } finally {
      await store.close();
      await counter.close();
    }
  });
});
