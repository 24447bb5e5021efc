import type { FastifyPluginAsync, HTTPMethods } from 'fastify';
import type { PlantStore } from '@plant-store/core';
import type { RequestListenerOptions } from '../handle-request.js';
import { createRequestListener } from '../request-listener.js';
import { ROUTES } from '../routes/route-table.js';

export interface PlantStorePluginOptions extends Omit<RequestListenerOptions, 'basePath'> {
  readonly store: PlantStore;
}

// Every method reaches the API on its paths, so a wrong one gets the API's 405 with `Allow`, not Fastify's 404.
const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * The Plant Store HTTP API as a Fastify plugin: `app.register(plantStorePlugin, { store, prefix: '/api' })`. Its routes
 * appear in Fastify's routing (paths that are not the API's stay the host's); the API reads its own bodies (size, depth,
 * duplicate keys, exact ids) and answers in its own error shape, so Fastify's parsers are set aside inside the plugin.
 */
export const plantStorePlugin: FastifyPluginAsync<PlantStorePluginOptions> = async (fastify, { store, ...options }) => {
  // Fastify's own register options (`prefix`, `logLevel`, …) ride along unread: the listener reads its options by name.
  const listener = createRequestListener(store, { ...options, basePath: fastify.prefix });
  // Encapsulated: the host's own routes keep their parsers.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null));
  for (const url of routePaths(options)) {
    fastify.route({
      method: METHODS,
      url,
      exposeHeadRoute: false,
      handler: (request, reply) => {
        // The API writes the response itself, as it does on node:http.
        reply.hijack();
        listener(request.raw, reply.raw);
      },
    });
  }
};

/** The route table in Fastify's syntax; the docs page and the portal are folders of files. */
function routePaths(options: Omit<PlantStorePluginOptions, 'store'>): string[] {
  const paths: string[] = [];
  for (const { template } of ROUTES) {
    if (template === '/docs' || template === '/metrics') continue;
    paths.push(template.replaceAll('{id}', ':id'));
  }
  if (options.metrics === true) paths.push('/metrics');
  if (options.docs === true) paths.push('/docs', '/docs/*');
  if (options.portal !== undefined) paths.push('/portal', '/portal/*');
  return paths;
}
