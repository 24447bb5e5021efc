// Run in a child process (node --conditions=source --import tsx): creates a
// request listener with the parts named in argv[2] (JSON listener options),
// answers a few requests, and prints which of the parts' packages were
// resolved or loaded, as JSON on stdout. CommonJS loads and resolutions go
// through Module._resolveFilename (wrapped here); an ESM import of them is
// refused by a resolve hook, so it fails the probe loudly.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Module, { createRequire, register } from 'node:module';

const WATCHED = ['prom-client', 'swagger-ui-dist'];
const packageOf = (request: string) => WATCHED.find((name) => request === name || request.startsWith(`${name}/`));

const seen = new Set<string>();
const resolver = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolve = resolver._resolveFilename;
resolver._resolveFilename = function (this: unknown, request, ...rest) {
  const name = packageOf(request);
  if (name !== undefined) seen.add(name);
  return resolve.call(this, request, ...rest);
};
register(
  `data:text/javascript,${encodeURIComponent(`
    const WATCHED = ${JSON.stringify(WATCHED)};
    export async function resolve(specifier, context, next) {
      if (WATCHED.some((name) => specifier === name || specifier.startsWith(name + '/'))) throw new Error(specifier + ' was imported');
      return next(specifier, context);
    }
  `)}`,
);

const options = JSON.parse(process.argv[2] ?? '{}') as { docs?: boolean; metrics?: boolean };
const { createPlantStore, staticTokens } = await import('@plant-store/core');
const { createRequestListener } = await import('@plant-store/http-node');
const { memoryStorage } = await import('@plant-store/storage-memory');

const store = createPlantStore({ storage: memoryStorage(), authenticator: staticTokens([{ token: 't', tenant: 'acme' }]) });
const server = createServer(createRequestListener(store, options)).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const statuses: Record<string, number> = {};
for (const path of ['/plants', '/healthz', '/docs', '/docs/swagger-ui.css', '/metrics']) {
  const response = await fetch(base + path, { headers: { authorization: 'Bearer t' } });
  await response.arrayBuffer();
  statuses[path] = response.status;
}
server.close();
await store.close();
const cached = Object.keys(createRequire(import.meta.url).cache).flatMap((file) => WATCHED.filter((name) => file.includes(`/node_modules/${name}/`)));
console.log(JSON.stringify({ resolved: [...seen].sort(), cached: [...new Set(cached)].sort(), statuses }));
