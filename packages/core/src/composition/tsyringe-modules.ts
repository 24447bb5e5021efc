import { createRequire } from 'node:module';

// tsyringe is CommonJS. Imported from ESM, Node 20 scans every file it
// re-exports for named exports, which makes loading it take twice as long;
// required, it loads as plain CommonJS. Its main entry refuses to load
// without the reflect-metadata polyfill, which only its decorators and
// constructor injection read: composition registers values and factories
// under symbols, so the container and factory modules are loaded directly,
// and no global polyfill is patched into the host's `Reflect`.
// Those paths are tsyringe's internals, not its API: package.json pins one
// exact version, so an upgrade is a deliberate change that checks them.
// The `plant-store` CLI bundle uses tsyringe-modules.bundle.ts instead.
const require = createRequire(import.meta.url);

// Typed in tsyringe-internals.d.ts, which the bundle's static imports use too.
type ContainerModule = typeof import('tsyringe/dist/cjs/dependency-container.js');
type FactoriesModule = typeof import('tsyringe/dist/cjs/factories/index.js');

/** tsyringe's root container: each store composes in a child of it. */
export const { instance: rootContainer } = require('tsyringe/dist/cjs/dependency-container.js') as ContainerModule;
export const { instanceCachingFactory } = require('tsyringe/dist/cjs/factories/index.js') as FactoriesModule;
