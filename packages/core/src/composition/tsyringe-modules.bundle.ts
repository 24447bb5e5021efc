// What the `plant-store` CLI bundle has in place of tsyringe-modules.ts: the
// same two modules of tsyringe, imported statically, so the bundler includes
// them (a run-time `require` would load some twenty files one by one at every
// start). Not part of the package's build: Node itself loads them faster
// through `require` (see tsyringe-modules.ts).
export { instance as rootContainer } from 'tsyringe/dist/cjs/dependency-container.js';
export { instanceCachingFactory } from 'tsyringe/dist/cjs/factories/index.js';
