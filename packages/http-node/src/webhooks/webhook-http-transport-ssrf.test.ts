import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookRequest } from '@plant-store/core/adapter';
import { webhookHttpTransport } from './webhook-http-transport.js';

// Real receivers on 127.0.0.1 counting TCP connections, so a refusal is
// proven to have happened before connecting.
const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function receiver() {
  const state = { connections: 0, requests: 0 };
  const server = http.createServer((req, res) => {
    state.requests++;
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.on('connection', () => state.connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, { port: (server.address() as AddressInfo).port });
}

const request = (url: string, restrictDestination?: boolean): WebhookRequest => ({
  url,
  headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
  body: '{"id":1,"name":"Fern"}',
  timeoutMs: 2_000,
  signal: new AbortController().signal,
  ...(restrictDestination === undefined ? {} : { restrictDestination }),
});

describe('webhookHttpTransport: restricted destinations (tenant endpoints)', () => {
  it('refuses a name resolving to loopback (localhost → 127.0.0.1) at connect: no connection is made', async () => {
    const target = await receiver();
    const outcome = await webhookHttpTransport().send(request(`http://localhost:${target.port}/hook`, true));
    expect(outcome).toEqual({ kind: 'retry', reason: 'destination not allowed' });
    expect(target.connections).toBe(0);
  });

  it('refuses a non-public IP literal before connecting, for good (no retry can help)', async () => {
    const target = await receiver();
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]']) {
      const outcome = await webhookHttpTransport().send(request(`http://${host}:${target.port}/hook`, true));
      expect(outcome).toEqual({ kind: 'failed', reason: 'destination not allowed' });
    }
    expect(target.connections).toBe(0);
  });

  it('sends to the same destinations when unrestricted (operator subscriptions, and tenant endpoints of a store with allowPrivateDestinations)', async () => {
    const target = await receiver();
    const transport = webhookHttpTransport();
    expect(await transport.send(request(`http://127.0.0.1:${target.port}/hook`))).toEqual({ kind: 'delivered', statusCode: 204 });
    expect(await transport.send(request(`http://localhost:${target.port}/hook`))).toEqual({ kind: 'delivered', statusCode: 204 });
    expect(target.requests).toBe(2);
  });

  it("never reuses a trusted request's pooled socket for a restricted one (pooled sockets skip the lookup)", async () => {
    const target = await receiver();
    const transport = webhookHttpTransport();
    // A trusted request leaves a kept-alive socket to localhost:port in its pool…
    expect(await transport.send(request(`http://localhost:${target.port}/a`))).toEqual({ kind: 'delivered', statusCode: 204 });
    expect(target.connections).toBe(1);
    // …which a restricted request to the same host and port must not pick up.
    expect(await transport.send(request(`http://localhost:${target.port}/b`, true))).toEqual({ kind: 'retry', reason: 'destination not allowed' });
    expect(target.requests).toBe(1);
    expect(target.connections).toBe(1);
    // The trusted pool still works (and reuses its socket).
    expect(await transport.send(request(`http://localhost:${target.port}/c`))).toEqual({ kind: 'delivered', statusCode: 204 });
    expect(target.requests).toBe(2);
  });
});
