import { describe, expect, it, vi } from 'vitest';

// A host app may not install swagger-ui-dist (an optional peer): turning the page on must say what is missing.
vi.mock('node:module', async (original) => {
  const actual = await original<typeof import('node:module')>();
  const createRequire = (from: string | URL) => {
    const require = actual.createRequire(from);
    const resolve = (id: string) => {
      if (id.startsWith('swagger-ui-dist')) throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
      return require.resolve(id);
    };
    return Object.assign((id: string) => require(id), require, { resolve });
  };
  return { ...actual, createRequire, default: { ...actual, createRequire } };
});

describe('docsFiles without swagger-ui-dist installed', () => {
  it('fails at once, naming the package to install', async () => {
    const { docsFiles } = await import('./docs-files.js');
    expect(() => docsFiles()).toThrow(/needs the swagger-ui-dist package/);
  });
});
