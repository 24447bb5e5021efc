// Entry @plant-store/http-node/fastify: only hosts that import it need fastify (an optional peer dependency).
export { plantStorePlugin, type PlantStorePluginOptions } from './fastify/plant-store-plugin.js';
export { fastifyServerOptions, type FastifyServerTimeouts, type PlantStoreFastifyServerOptions } from './fastify/fastify-server-options.js';
