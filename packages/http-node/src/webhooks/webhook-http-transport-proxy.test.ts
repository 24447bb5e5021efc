import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WebhookRequest } from '@plant-store/core/adapter';
import { type ConnectProxy, connectProxy, downProxyUrl } from '../../../../test/support/connect-proxy.js';
import { startReceiver, type WebhookReceiver } from '../../../../test/support/webhook-receiver.js';
import type { ResolveAll } from './guarded-lookup.js';
import { guardedWebhookHttpTransport, webhookHttpTransport } from './webhook-http-transport.js';

// A real CONNECT proxy and a real receiver, both on loopback.
const closing: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(closing.splice(0).map((each) => each.close()));
});

async function proxy(options?: Parameters<typeof connectProxy>[0]): Promise<ConnectProxy> {
  const started = await connectProxy(options);
  closing.push(started);
  return started;
}

async function receiver(): Promise<WebhookReceiver> {
  const started = await startReceiver();
  closing.push(started);
  return started;
}

const request = (url: string, restrictDestination = false): WebhookRequest => ({
  url,
  headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
  body: '{"id":1,"name":"Fern"}',
  timeoutMs: 5_000,
  signal: new AbortController().signal,
  ...(restrictDestination ? { restrictDestination } : {}),
});

/** A resolver that knows `receiver.example` as loopback, and a rule that takes loopback for public: a test's stand-in for a public receiver. */
const resolve: ResolveAll = (hostname, _options, callback) =>
  hostname === 'receiver.example'
    ? callback(null, [{ address: '127.0.0.1', family: 4 }])
    : callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
const loopbackIsPublic = { resolve, isAllowed: (address: string) => address === '127.0.0.1' };

describe('webhookHttpTransport through a CONNECT proxy', () => {
  it('sends each attempt through a tunnel the proxy opened, http:// receivers too, and reuses the tunnel', async () => {
    const [egress, target] = await Promise.all([proxy(), receiver()]);
    const transport = webhookHttpTransport({ proxy: egress.url });
    expect(await transport.send(request(target.url('/a')))).toEqual({ kind: 'delivered', statusCode: 204 });
    expect(await transport.send(request(target.url('/b')))).toEqual({ kind: 'delivered', statusCode: 204 });
    expect(egress.connects).toEqual([`127.0.0.1:${target.port}`]);
    expect(target.received.map((hit) => [hit.path, hit.body])).toEqual([
      ['/a', '{"id":1,"name":"Fern"}'],
      ['/b', '{"id":1,"name":"Fern"}'],
    ]);
  });

  it('resolves and checks a tenant receiver itself, then has the proxy connect to the checked address under the receiver name', async () => {
    const [egress, target] = await Promise.all([proxy(), receiver()]);
    const transport = guardedWebhookHttpTransport({ proxy: egress.url }, loopbackIsPublic);
    expect(await transport.send(request(`http://receiver.example:${target.port}/hook`, true))).toEqual({ kind: 'delivered', statusCode: 204 });
    // The proxy was given the address, never the name it would resolve on its own.
    expect(egress.connects).toEqual([`127.0.0.1:${target.port}`]);
    expect(target.received[0]!.headers['host']).toBe(`receiver.example:${target.port}`);
  });

  it('refuses a tenant receiver on a private address before asking the proxy, which would have reached it', async () => {
    const [egress, target] = await Promise.all([proxy(), receiver()]);
    const transport = webhookHttpTransport({ proxy: egress.url });
    expect(await transport.send(request(`http://localhost:${target.port}/hook`, true))).toEqual({ kind: 'retry', reason: 'destination not allowed' });
    expect(await transport.send(request(`http://127.0.0.1:${target.port}/hook`, true))).toEqual({ kind: 'failed', reason: 'destination not allowed' });
    expect(egress.connects).toEqual([]);
    // The same receiver, unrestricted (an operator subscription): the proxy reaches it.
    expect(await transport.send(request(`http://localhost:${target.port}/hook`))).toEqual({ kind: 'delivered', statusCode: 204 });
    expect(egress.connects).toEqual([`localhost:${target.port}`]);
    expect(target.received).toHaveLength(1);
  });

  it('tells a proxy that is down, or refuses the tunnel, apart from the receiver (egressFailed), keeping its address out of the reason', async () => {
    const target = await receiver();
    const down = await downProxyUrl();
    expect(await webhookHttpTransport({ proxy: down }).send(request(target.url()))).toEqual({
      kind: 'retry',
      reason: 'proxy failed: ECONNREFUSED',
      egressFailed: true,
    });
    const guarded = await proxy({ credentials: 'egress:s3cret' });
    const anonymous = guarded.url.replace('egress:s3cret@', '');
    expect(await webhookHttpTransport({ proxy: anonymous }).send(request(target.url()))).toEqual({
      kind: 'retry',
      reason: 'proxy answered CONNECT with 407 Proxy Authentication Required',
      egressFailed: true,
    });
    const gateway = await proxy({ refuseWith: 502 });
    expect(await webhookHttpTransport({ proxy: gateway.url }).send(request(target.url()))).toEqual({
      kind: 'retry',
      reason: 'proxy answered CONNECT with 502 Bad Gateway',
      egressFailed: true,
    });
    expect(target.received).toEqual([]);
    // With its credentials in the URL, the same proxy opens the tunnel.
    expect(await webhookHttpTransport({ proxy: guarded.url }).send(request(target.url()))).toEqual({ kind: 'delivered', statusCode: 204 });
  });

  it('blames the receiver, not the proxy, once the tunnel is open', async () => {
    const [egress, target] = await Promise.all([proxy(), receiver()]);
    target.reply(() => ({ status: 500 }));
    expect(await webhookHttpTransport({ proxy: egress.url }).send(request(target.url()))).toEqual({
      kind: 'retry',
      statusCode: 500,
      reason: 'receiver answered 500',
    });
  });

  it('with "env", takes the proxy from HTTP_PROXY/HTTPS_PROXY and honours NO_PROXY', async () => {
    const [egress, target] = await Promise.all([proxy(), receiver()]);
    vi.stubEnv('HTTP_PROXY', egress.url);
    vi.stubEnv('NO_PROXY', '127.0.0.1');
    const transport = webhookHttpTransport({ proxy: 'env' });
    expect(await transport.send(request(target.url('/direct')))).toEqual({ kind: 'delivered', statusCode: 204 });
    expect(egress.connects).toEqual([]);
    expect(await transport.send(request(`http://localhost:${target.port}/proxied`))).toEqual({ kind: 'delivered', statusCode: 204 });
    expect(egress.connects).toEqual([`localhost:${target.port}`]);
    expect(target.received.map((hit) => hit.path)).toEqual(['/direct', '/proxied']);
  });

  it('with "env", records a proxy variable that is not a proxy URL as an egress failure, without echoing it', async () => {
    const target = await receiver();
    vi.stubEnv('HTTP_PROXY', 'socks5://egress:hunter2@proxy.internal:1080');
    vi.stubEnv('NO_PROXY', '');
    expect(await webhookHttpTransport({ proxy: 'env' }).send(request(target.url()))).toEqual({
      kind: 'retry',
      reason: 'proxy failed: the webhook proxy must be an http:// or https:// URL such as http://proxy.internal:3128',
      egressFailed: true,
    });
    expect(target.received).toEqual([]);
  });

  it('refuses a proxy setting that is not a proxy URL, without echoing it', () => {
    for (const setting of ['proxy.internal:3128', 'socks5://user:pw@proxy.internal', 'not a url']) {
      expect(() => webhookHttpTransport({ proxy: setting })).toThrow(
        /^the webhook proxy must be an http:\/\/ or https:\/\/ URL such as http:\/\/proxy\.internal:3128$/,
      );
      expect(() => webhookHttpTransport({ proxy: setting })).toThrow(TypeError);
    }
  });
});
