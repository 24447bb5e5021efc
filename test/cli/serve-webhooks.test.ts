import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { version } from '@plant-store/server';
import { startServe } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A real receiver on 127.0.0.1; `hang` never answers. */
async function receiver(mode: 'answer' | 'hang'): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (mode === 'answer') res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/hook`, received };
}

const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-webhooks-'));
const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('serve with webhooks configured by variable and file', () => {
  it('signs deliveries for every subscription, and a receiver that hangs does not hold up the exit', async () => {
    const answering = await receiver('answer');
    const hanging = await receiver('hang');
    servers.push(answering.server, hanging.server);
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const file = join(dir, 'webhooks.json');
    writeFileSync(file, JSON.stringify([{ url: hanging.url, secret }]));

    const service = await startServe(['--port=0', '--storage=memory', `--webhooks-file=${file}`], {
      env: {
        PLANT_STORE_TOKENS: 'hook-token=acme',
        PLANT_STORE_WEBHOOKS: JSON.stringify([{ url: answering.url, secret, tenant: 'acme' }]),
        PLANT_STORE_WEBHOOK_RETRY: '50ms',
        PLANT_STORE_WEBHOOK_TIMEOUT: '30s',
      },
    });
    try {
      const created = await fetch(`${service.url}/plants`, {
        method: 'POST',
        headers: { authorization: 'Bearer hook-token', 'content-type': 'application/json' },
        body: '{"id": -9223372036854775808, "name": "Hooked"}',
      });
      expect(created.status).toBe(200);
      await created.text();

      await eventually(() => answering.received.length > 0 && hanging.received.length > 0, 'both deliveries');
      const delivery = answering.received[0]!;
      expect(delivery.body).toBe('{"id":-9223372036854775808,"name":"Hooked"}');
      expect(delivery.headers['user-agent']).toBe(`plant-store/${version}`);
      expect(() => new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)).not.toThrow();
      expect(service.stdout()).not.toContain(secret);

      // The attempt to the hanging receiver is still in flight (its timeout is 30 s).
      const exit = await service.stop('SIGTERM', 10_000);
      expect(exit.code).toBe(0);
      expect(service.logs().some((log) => log['msg'] === 'stopped')).toBe(true);
      expect(exit.stdout).not.toContain(secret);
    } finally {
      service.child.kill('SIGKILL');
    }
  });
});
