import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Resolve @plant-store/* to their TypeScript sources (the "source" export
  // condition), so tests never run against a stale build.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    // Finds PostgreSQL once per run for the PostgreSQL suites (skip, or fail with CI=true).
    globalSetup: ['test/support/postgres-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
