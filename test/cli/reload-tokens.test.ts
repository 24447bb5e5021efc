import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startServe } from '../support/cli-process.js';

// Rotating and revoking tokens without a restart: the tokens file is read
// again when it changes and on SIGHUP, which never ends the service.

const dir = mkdtempSync(join(tmpdir(), 'plant-store-reload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('plant-store serve reloads its tokens file', () => {
  it('applies a changed file at once, keeps the old set on a bad one, and reloads on SIGHUP', async () => {
    const file = join(dir, 'tokens.json');
    writeFileSync(file, JSON.stringify([{ token: 'old-token', tenant: 'acme' }, { token: 'kept-token', tenant: 'acme' }]));
    const service = await startServe(['--port', '0', '--storage', 'memory', '--tokens-file', file]);
    const status = async (token: string) => (await fetch(`${service.url}/plants`, { headers: { authorization: `Bearer ${token}` } })).status;
    const logged = (message: string) => service.logs().filter((line) => line['msg'] === message);
    try {
      expect(await status('old-token')).toBe(200);

      writeFileSync(file, JSON.stringify([{ token: 'new-token', tenant: 'acme' }, { token: 'kept-token', tenant: 'acme' }]));
      await vi.waitFor(() => expect(logged('tokens reloaded')).toHaveLength(1), { timeout: 5_000 });
      expect(logged('tokens reloaded')[0]).toMatchObject({ level: 'info', added: 1, removed: 1, total: 2, trigger: `${file} changed` });
      expect(await status('old-token')).toBe(401);
      expect(await status('new-token')).toBe(200);

      writeFileSync(file, '[{"token": "half-written", "tenant": "acme"},');
      await vi.waitFor(() => expect(logged('reload failed; the current tokens stay in use')).toHaveLength(1), { timeout: 5_000 });
      expect(String(logged('reload failed; the current tokens stay in use')[0]!['error'])).toContain('PLANT_STORE_TOKENS_FILE (--tokens-file)');
      expect(await status('new-token')).toBe(200);
      expect(await status('half-written')).toBe(401);

      writeFileSync(file, JSON.stringify([{ token: 'kept-token', tenant: 'acme' }]));
      service.child.kill('SIGHUP');
      await vi.waitFor(() => expect(logged('tokens reloaded').some((line) => line['trigger'] === 'SIGHUP')).toBe(true), { timeout: 5_000 });
      expect(await status('new-token')).toBe(401);
      expect(await status('kept-token')).toBe(200);
      expect(service.child.exitCode).toBeNull();
      expect(service.stdout()).not.toContain('kept-token');
    } finally {
      expect((await service.stop()).code).toBe(0);
    }
  });

  it('survives SIGHUP without a tokens file', async () => {
    const service = await startServe(['--port', '0', '--storage', 'memory', '--tokens', 't=acme']);
    try {
      service.child.kill('SIGHUP');
      await vi.waitFor(() => expect(service.logs().some((line) => line['msg'] === 'nothing to reload: no tokens file is configured')).toBe(true), { timeout: 5_000 });
      expect(service.child.exitCode).toBeNull();
    } finally {
      expect((await service.stop()).code).toBe(0);
    }
  });
});
