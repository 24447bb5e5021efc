import { afterEach, describe, expect, it } from 'vitest';
import { api, type ApiRequest } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { STORAGE_KINDS } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// An endpoint stored with a header that is refused today (it was accepted
// once): each attempt fails naming the header and what to do, instead of a
// transport error, and a PATCH of its headers lets the message go.

interface DeliveryJson {
  id: string;
  status: string;
  attempts: { error?: string; statusCode?: number }[];
}

let server: TestServer | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  await server?.close();
});

describe.each(STORAGE_KINDS)('an endpoint stored with a Trailer header (%s storage)', (kind) => {
  it('fails each attempt naming the header, sends nothing, and delivers once the headers are replaced', async () => {
    receiver = await startReceiver();
    server = await startTestServer(kind, { deliver: true, allowPrivateDestinations: true });
    const url = server.url;
    const call = (method: string, path: string, request: ApiRequest = {}) => api(url, method, path, { token: TOKENS.owner, ...request });
    const created = await call('POST', '/webhooks/endpoints', { body: JSON.stringify({ url: receiver.url('/hook'), headers: { 'X-Team': 'garden' } }) });
    expect(created.status, created.text).toBe(201);
    const { id } = created.json as { id: string };
    // As an older version stored it.
    expect(await server.storage.endpoints.update('a', id, { headers: { 'X-Team': 'garden', Trailer: 'X-Checksum' }, updatedAt: Date.now() })).toBeDefined();

    expect((await call('POST', '/plants', { body: '{"id":1,"name":"Fern"}' })).status).toBe(200);
    const delivery = async () => ((await call('GET', `/webhooks/deliveries?endpoint=${id}`)).json as DeliveryJson[])[0];
    await eventually(async () => (await delivery())?.status === 'failed', 'the delivery failed for good');
    const failed = (await delivery())!;
    expect(failed.attempts).toHaveLength(3);
    for (const attempt of failed.attempts) {
      expect(attempt.error).toBe(
        "headers.Trailer governs the connection or the request's framing, which the service's HTTP client owns (as do connection, keep-alive, transfer-encoding, te, trailer, upgrade, http2-settings, expect); replace the endpoint's headers",
      );
    }
    expect(receiver.received).toEqual([]);

    expect((await call('PATCH', `/webhooks/endpoints/${id}`, { body: JSON.stringify({ headers: { 'X-Team': 'garden' } }) })).status).toBe(200);
    expect((await call('POST', `/webhooks/deliveries/${failed.id}/resend`)).status).toBe(202);
    const [request] = await receiver.waitFor(1);
    expect(request!.headers['x-team']).toBe('garden');
    expect(request!.headers['trailer']).toBeUndefined();
  });
});
