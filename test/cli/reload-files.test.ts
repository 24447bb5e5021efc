import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startServe } from '../support/cli-process.js';

// Rotating and revoking tokens, and changing webhook subscriptions, without
// a restart: the files are read again when they change and on SIGHUP, which
// never ends the service.

const dir = mkdtempSync(join(tmpdir(), 'plant-store-reload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('plant-store serve reloads its tokens and webhooks files', () => {
  it('applies a changed file at once, keeps the old set on a bad one, and reloads on SIGHUP', async () => {
    const file = join(dir, 'tokens.json');
    writeFileSync(
      file,
      JSON.stringify([
        { token: 'old-token', tenant: 'acme' },
        { token: 'kept-token', tenant: 'acme' },
      ]),
    );
    const service = await startServe(['--port', '0', '--storage', 'memory', '--tokens-file', file]);
    const status = async (token: string) => (await fetch(`${service.url}/plants`, { headers: { authorization: `Bearer ${token}` } })).status;
    const logged = (message: string) => service.logs().filter((line) => line['msg'] === message);
    try {
      expect(await status('old-token')).toBe(200);

      writeFileSync(
        file,
        JSON.stringify([
          { token: 'new-token', tenant: 'acme' },
          { token: 'kept-token', tenant: 'acme' },
        ]),
      );
      await vi.waitFor(() => expect(logged('tokens reloaded')).toHaveLength(1), { timeout: 5_000 });
      expect(logged('tokens reloaded')[0]).toMatchObject({ level: 'info', added: 1, removed: 1, total: 2, trigger: `${file} changed` });
      expect(await status('old-token')).toBe(401);
      expect(await status('new-token')).toBe(200);

      writeFileSync(file, '[{"token": "half-written", "tenant": "acme"},');
      await vi.waitFor(() => expect(logged('reload failed; the current tokens and webhook subscriptions stay in use')).toHaveLength(1), { timeout: 5_000 });
      expect(String(logged('reload failed; the current tokens and webhook subscriptions stay in use')[0]!['error'])).toContain(
        'PLANT_STORE_TOKENS_FILE (--tokens-file)',
      );
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
      await vi.waitFor(
        () => expect(service.logs().some((line) => line['msg'] === 'nothing to reload: no tokens file or webhooks file is configured')).toBe(true),
        { timeout: 5_000 },
      );
      expect(service.child.exitCode).toBeNull();
    } finally {
      expect((await service.stop()).code).toBe(0);
    }
  });

  it('sends new plants to the subscriptions of the changed webhooks file', async () => {
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      received.push(req.url!);
      req.resume().on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const file = join(dir, 'webhooks.json');
    writeFileSync(file, JSON.stringify([{ url: `${base}/old`, secret }]));
    const service = await startServe(['--port', '0', '--storage', 'memory', '--tokens', 't=acme', '--webhooks-file', file]);
    const create = (id: number) =>
      fetch(`${service.url}/plants`, {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: JSON.stringify({ id, name: 'p' }),
      });
    try {
      expect((await create(1)).status).toBe(200);
      await vi.waitFor(() => expect(received).toEqual(['/old']), { timeout: 5_000 });
      writeFileSync(file, JSON.stringify([{ url: `${base}/new`, secret }]));
      await vi.waitFor(
        () => expect(service.logs().find((line) => line['msg'] === 'webhook subscriptions reloaded')).toMatchObject({ added: 1, removed: 1, total: 1 }),
        {
          timeout: 5_000,
        },
      );
      expect((await create(2)).status).toBe(200);
      await vi.waitFor(() => expect(received).toEqual(['/old', '/new']), { timeout: 5_000 });
      expect(service.stdout()).not.toContain(secret);
    } finally {
      await service.stop();
      receiver.closeAllConnections();
      receiver.close();
    }
  });
});
