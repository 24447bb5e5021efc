// A store served in-process by one front of @plant-store/http-node, for the fetch-handler scenario:
// `node --import tsx bench/lib/front-server.ts <listener|fetch> <sqlite|memory> <db file> <tokens JSON>`.
// Prints its URL once listening; SIGTERM closes it.
import { createPlantStore, staticTokens } from '@plant-store/core';
import { memoryStorage } from '@plant-store/storage-memory';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { createFrontServer, type HttpFront } from '../../test/support/http-front.js';

const [front, storage, dbFile, tokensJson] = process.argv.slice(2);
const tokens = JSON.parse(tokensJson ?? '{}') as Record<string, string>;
const store = createPlantStore({
  storage: storage === 'sqlite' ? await sqliteStorage({ path: dbFile! }) : memoryStorage(),
  authenticator: staticTokens(Object.entries(tokens).map(([token, tenant]) => ({ token, tenant }))),
});
// The same choice of front as the HTTP suites make.
const server = createFrontServer(front as HttpFront, store, {});
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
