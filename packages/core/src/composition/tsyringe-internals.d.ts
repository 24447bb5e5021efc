// Types of the two tsyringe modules composition loads by path (see
// tsyringe-modules.ts): they are its internals, shipped without types of
// their own, and export what its public entry re-exports.
declare module 'tsyringe/dist/cjs/dependency-container.js' {
  export const instance: import('tsyringe').DependencyContainer;
}
declare module 'tsyringe/dist/cjs/factories/index.js' {
  export const instanceCachingFactory: typeof import('tsyringe').instanceCachingFactory;
}
