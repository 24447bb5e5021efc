import { verifyWebhook } from '@plant-store/client';
import { afterEach, describe, expect, it } from 'vitest';
import { api, type ApiRequest } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { STORAGE_KINDS } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// Signing fails closed: an endpoint whose stored secret is malformed (a
// damaged row, a hand edit) gets no message at all, unsigned or short of a
// signature. Each attempt fails with the reason in the delivery log and the
// service's log, the secret is never handed out as it is, and a rotation
// repairs it at once.

interface DeliveryJson {
  id: string;
  status: string;
  attempts: { error?: string; statusCode?: number }[];
}

const MALFORMED = 'whsk_AAAAdamagedAAAA';
const CANNOT_SIGN = /^cannot sign: the endpoint's current secret is malformed \(not "whsec_" or "whsk_" followed by base64 of a key\); rotate it/;

let server: TestServer | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  await server?.close();
});

describe.each(STORAGE_KINDS)('an endpoint with a malformed stored secret (%s storage)', (kind) => {
  it('fails every attempt with the reason, sends nothing, never shows the secret, and works again after a rotation', async () => {
    receiver = await startReceiver();
    server = await startTestServer(kind, { deliver: true, allowPrivateDestinations: true });
    const url = server.url;
    const call = (method: string, path: string, request: ApiRequest = {}) => api(url, method, path, { token: TOKENS.owner, ...request });
    const created = await call('POST', '/webhooks/endpoints', { body: JSON.stringify({ url: receiver.url('/hook'), signature: 'ed25519' }) });
    expect(created.status, created.text).toBe(201);
    const { id } = created.json as { id: string };
    // Damaged in storage, past every check a tenant's input goes through.
    expect(await server.storage.endpoints.rotateSecret('a', id, MALFORMED, 0, Date.now())).toBe(true);

    expect((await call('POST', '/plants', { body: '{"id":1,"name":"Fern"}' })).status).toBe(200);
    const failed = async () => ((await call('GET', `/webhooks/deliveries?endpoint=${id}`)).json as DeliveryJson[])[0];
    await eventually(async () => (await failed())?.status === 'failed', 'the delivery failed for good');
    const delivery = (await failed())!;
    // Every scheduled attempt was made and failed for this reason; none reached the receiver.
    expect(delivery.attempts).toHaveLength(3);
    for (const attempt of delivery.attempts) expect(attempt.error).toMatch(CANNOT_SIGN);
    expect(receiver.received).toEqual([]);
    const logged = server.logs.filter((line) => line.message.startsWith('webhook attempt failed') || line.message.startsWith('webhook delivery failed'));
    expect(logged).toHaveLength(3);
    for (const line of logged) expect(String(line.fields?.['error'])).toMatch(CANNOT_SIGN);

    // The secret route does not hand the damaged private key out.
    const secret = await call('GET', `/webhooks/endpoints/${id}/secret`);
    expect(secret.status).toBe(500);
    expect(secret.text).not.toContain('damaged');
    expect(server.logs.some((line) => line.message === 'request failed' && String(line.fields?.['error']).includes('secret is malformed'))).toBe(true);
    expect(JSON.stringify(server.logs)).not.toContain('damaged');

    // A rotation makes a new key pair, and the damaged key signs no more (no overlap for it).
    const rotated = await call('POST', `/webhooks/endpoints/${id}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    const publicKey = (rotated.json as { secret: string }).secret;
    expect(publicKey).toMatch(/^whpk_/);
    expect((await call('POST', `/webhooks/deliveries/${delivery.id}/resend`)).status).toBe(202);
    const [request] = await receiver.waitFor(1);
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(await verifyWebhook(request!.body, request!.headers, publicKey)).toEqual({ id: 1n, name: 'Fern' });
  });
});
