import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPlantStore, staticTokens } from '@plant-store/core';
import { createRequestListener, type RequestListenerOptions } from '@plant-store/http-node';
import { memoryStorage } from '@plant-store/storage-memory';

/**
 * A host's own node:http server with the API mounted under `basePath` (the
 * rest of its paths answer the host's own 404), on a memory store whose one
 * token is `host-token`.
 */
export async function startHost(basePath: string, options: Omit<RequestListenerOptions, 'basePath'> = {}): Promise<{ url: string; close(): Promise<void> }> {
  const store = createPlantStore({ storage: memoryStorage(), authenticator: staticTokens([{ token: 'host-token', tenant: 'host' }]) });
  const api = createRequestListener(store, { ...options, basePath });
  const server: Server = createServer((req, res) => api(req, res, () => res.writeHead(404).end('host: not found')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await store.close();
    },
  };
}
