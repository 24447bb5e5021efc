import { describe, expect, it } from 'vitest';
import { endpointUnderTest } from '../support/endpoint-under-test.js';
import { STORAGE_KINDS } from '../support/storage-kind.js';

// An endpoint stored with a header that is refused today (it was accepted
// once): each attempt fails naming the header and what to do, instead of a
// transport error, and a PATCH of its headers lets the message go.

const startEndpoint = endpointUnderTest();

describe.each(STORAGE_KINDS)('an endpoint stored with a Trailer header (%s storage)', (kind) => {
  it('fails each attempt naming the header, sends nothing, and delivers once the headers are replaced', async () => {
    const { server, receiver, id, call, failedDelivery } = await startEndpoint(kind, { headers: { 'X-Team': 'garden' } });
    // As an older version stored it.
    expect(await server.storage.endpoints.update('a', id, { headers: { 'X-Team': 'garden', Trailer: 'X-Checksum' }, updatedAt: Date.now() })).toBeDefined();

    const failed = await failedDelivery();
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
