import { verifyWebhook } from '@plant-store/client';
import { describe, expect, it } from 'vitest';
import { endpointUnderTest } from '../support/endpoint-under-test.js';
import { STORAGE_KINDS } from '../support/storage-kind.js';

// Signing fails closed: an endpoint whose stored secret is malformed (a
// damaged row, a hand edit) gets no message at all, unsigned or short of a
// signature. Each attempt fails with the reason in the delivery log and the
// service's log, the secret is never handed out as it is, and a rotation
// repairs it at once.

const MALFORMED = 'whsk_AAAAdamagedAAAA';
const CANNOT_SIGN = /^cannot sign: the endpoint's current secret is malformed \(not "whsec_" or "whsk_" followed by base64 of a key\); rotate it/;

const startEndpoint = endpointUnderTest();

describe.each(STORAGE_KINDS)('an endpoint with a malformed stored secret (%s storage)', (kind) => {
  it('fails every attempt with the reason, sends nothing, never shows the secret, and works again after a rotation', async () => {
    const { server, receiver, id, call, failedDelivery } = await startEndpoint(kind, { signature: 'ed25519' });
    // Damaged in storage, past every check a tenant's input goes through.
    expect(await server.storage.endpoints.rotateSecret('a', id, MALFORMED, 0, Date.now())).toBe(true);

    const delivery = await failedDelivery();
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

  it('fails closed on a malformed previous secret too, while it is live: no message goes out short of a signature', async () => {
    const { server, receiver, id, failedDelivery } = await startEndpoint(kind, { signature: 'ed25519' });
    const { current } = (await server.storage.endpoints.secrets('a', id))!;
    // The good key current again, the damaged one its previous for another hour.
    expect(await server.storage.endpoints.rotateSecret('a', id, MALFORMED, 0, Date.now())).toBe(true);
    expect(await server.storage.endpoints.rotateSecret('a', id, current, Date.now() + 3_600_000, Date.now())).toBe(true);

    const delivery = await failedDelivery();
    expect(delivery.attempts).toHaveLength(3);
    for (const attempt of delivery.attempts) expect(attempt.error).toMatch(/^cannot sign: the endpoint's previous secret is malformed/);
    expect(receiver.received).toEqual([]);
  });
});
