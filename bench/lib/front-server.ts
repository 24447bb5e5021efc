// A store served in-process by one front of @plant-store/http-node, for the fetch-handler scenario:
// `node --import tsx bench/lib/front-server.ts <listener|fetch> <sqlite|memory> <db file> <tokens JSON>`.
// Prints its URL once listening; SIGTERM closes it.
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { createPlantStore, staticTokens } from '@plant-store/core';
import { createFetchHandler, createPlantServer } from '@plant-store/http-node';
import { memoryStorage } from '@plant-store/storage-memory';
import { sqliteStorage } from '@plant-store/storage-sqlite';

const [front, storage, dbFile, tokensJson] = process.argv.slice(2);
const tokens = JSON.parse(tokensJson ?? '{}') as Record<string, string>;
const store = createPlantStore({
  storage: storage === 'sqlite' ? await sqliteStorage({ path: dbFile! }) : memoryStorage(),
  authenticator: staticTokens(Object.entries(tokens).map(([token, tenant]) => ({ token, tenant }))),
});
// Node's own Request and Response, as a host that mounts the handler in another framework keeps them.
const server = (
  front === 'fetch' ? createAdaptorServer({ fetch: createFetchHandler(store), overrideGlobalObjects: false }) : createPlantServer(store)
) as Server;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${front} front listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.once('SIGTERM', () => {
  server.close(async () => {
    await store.close();
    process.exit(0);
  });
  server.closeIdleConnections();
});
