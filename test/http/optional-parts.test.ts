import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TSX } from '../support/cli-process.js';

const PROBE = fileURLToPath(new URL('../support/parts-probe.ts', import.meta.url));

interface Probe {
  readonly resolved: string[];
  readonly cached: string[];
  readonly statuses: Record<string, number>;
}

/** Runs the probe in a fresh process (so nothing is loaded yet) with these listener options. */
function probe(options: { docs?: boolean; metrics?: boolean }): Promise<Probe> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', TSX, PROBE, JSON.stringify(options)], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(stdout) as Probe);
      else reject(new Error(`probe exited with ${code}: ${stderr}`));
    });
  });
}

// `/docs` (swagger-ui-dist) and `/metrics` (prom-client) are opt-in parts:
// a host mounting only the API must not pay for loading either.
describe('the listener loads its optional parts only when they are on', () => {
  it('with docs and metrics off, neither swagger-ui-dist nor prom-client is resolved or loaded', async () => {
    const { resolved, cached, statuses } = await probe({});
    expect(statuses).toEqual({ '/plants': 200, '/healthz': 200, '/docs': 404, '/docs/swagger-ui.css': 404, '/metrics': 404 });
    expect(resolved).toEqual([]);
    expect(cached).toEqual([]);
  });

  it('with both on, each is found (so the probe above can see them)', async () => {
    const { resolved, cached, statuses } = await probe({ docs: true, metrics: true });
    expect(statuses).toEqual({ '/plants': 200, '/healthz': 200, '/docs': 200, '/docs/swagger-ui.css': 200, '/metrics': 200 });
    expect(resolved).toEqual(['prom-client', 'swagger-ui-dist']);
    expect(cached).toEqual(['prom-client']);
  });

  it('each part alone loads only its own package', async () => {
    expect((await probe({ docs: true })).resolved).toEqual(['swagger-ui-dist']);
    expect((await probe({ metrics: true })).resolved).toEqual(['prom-client']);
  });
});
