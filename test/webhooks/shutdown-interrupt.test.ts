import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { startServe, type ServeProcess } from '../support/cli-process.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-interrupt-'));
const services: ServeProcess[] = [];
let receiver: WebhookReceiver | undefined;

afterAll(async () => {
  for (const service of services) service.child.kill('SIGKILL');
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SIGTERM while a webhook attempt is in flight', () => {
  it('interrupts the attempt, and the restarted service delivers it at once instead of after the lease', async () => {
    receiver = await startReceiver();
    // The first request hangs (the receiver never answers); later ones are taken.
    receiver.reply((_, index) => (index === 0 ? 'hang' : { status: 204 }));
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const db = join(dir, 'plant-store.db');
    const args = [
      '--port',
      '0',
      '--db',
      db,
      '--tokens',
      't=acme',
      '--webhooks',
      JSON.stringify([{ url: receiver.url(), secret }]),
      // An attempt may take 10 minutes: its lease (timeout + 10 s) would hold the delivery that long.
      '--webhook-timeout',
      '10m',
    ];
    const env = { NODE_ENV: 'test' };

    const first = await startServe(args, { env });
    services.push(first);
    const created = await fetch(`${first.url}/plants`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"id":9223372036854775807,"name":"Fern"}',
    });
    expect(created.status).toBe(200);
    const [hanging] = await receiver.waitFor(1);
    const exit = await first.stop('SIGTERM');
    expect(exit.code).toBe(0);
    expect(first.logs().some((line) => line['msg'] === 'webhook attempt interrupted by shutdown; due again at once')).toBe(true);

    const second = await startServe(args, { env });
    services.push(second);
    // Far sooner than the 10-minute lease could end: only a released, due delivery gets here in time.
    const [, retried] = await receiver.waitFor(2, { timeoutMs: 15_000 });
    expect(retried!.headers['webhook-id']).toBe(hanging!.headers['webhook-id']);
    expect(retried!.body).toBe('{"id":9223372036854775807,"name":"Fern"}');
    expect(new Webhook(secret).verify(retried!.body, retried!.headers)).toBeTruthy();
    expect((await second.stop('SIGTERM')).code).toBe(0);

    // The log tells the story: the cut-short attempt (not counted toward retries), then the delivery.
    const storage = await sqliteStorage({ path: db });
    try {
      const [delivery] = (await storage.outbox.list())!;
      expect(delivery).toMatchObject({ id: hanging!.headers['webhook-id'], status: 'delivered', attemptCount: 2 });
      expect(delivery!.attempts).toEqual([
        expect.objectContaining({ interrupted: true, error: 'interrupted: the dispatcher stopped' }),
        expect.objectContaining({ statusCode: 204 }),
      ]);
      expect(delivery!.attempts[0]).not.toHaveProperty('statusCode');
    } finally {
      await storage.close();
    }
  }, 60_000);
});
