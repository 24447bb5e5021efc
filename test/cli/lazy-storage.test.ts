import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from '../support/cli-process.js';

// Only the chosen storage adapter is loaded: a memory service never maps the
// better-sqlite3 native addon into its process (read from /proc, the
// kernel's own account of what the process has loaded).
const hasProc = (() => {
  try {
    readFileSync('/proc/self/maps');
    return true;
  } catch {
    return false;
  }
})();
const folder = mkdtempSync(join(tmpdir(), 'plant-store-lazy-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function loadsSqliteAddon(pid: number): boolean {
  return readFileSync(`/proc/${pid}/maps`, 'utf8').includes('better_sqlite3.node');
}

describe.skipIf(!hasProc)('storage adapters load lazily (skipped: no /proc on this system)', () => {
  it.each([
    ['memory', false, ['--storage', 'memory']],
    ['sqlite', true, ['--storage', 'sqlite', '--db', join(folder, 'lazy.db')]],
  ] as const)('--storage %s maps the SQLite driver: %s', async (_, expected, args) => {
    const service = await startServe(['--port', '0', '--tokens', 't=acme', ...args]);
    try {
      expect(loadsSqliteAddon(service.child.pid!)).toBe(expected);
    } finally {
      await service.stop();
    }
  });
});
