import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPlantStore, type PlantStore } from '@plant-store/core';
import type { Logger, LogFields } from '@plant-store/core/adapter';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import { memoryStorage } from '@plant-store/storage-memory';
import { connectProxy, downProxyUrl } from '../support/connect-proxy.js';
import { eventually } from '../support/eventually.js';
import { acme } from '../support/principals.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// Auto-disable through an egress proxy, with the real transport: a proxy
// that is down or wants credentials is the operator's trouble, so the
// tenant's endpoint stays enabled; a receiver that fails behind a working
// proxy is disabled as it would be without one.

const closing: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(closing.splice(0).map((each) => each.close()));
});

function recordingLogger() {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const at = (level: string) => (message: string, fields?: LogFields) => void lines.push({ level, message, fields });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

async function setUp(proxy: string) {
  const receiver: WebhookReceiver = await startReceiver();
  closing.push(receiver);
  receiver.reply(() => ({ status: 500 }));
  const { logger, lines } = recordingLogger();
  // Two attempts 5 ms apart: once the second fails, every attempt failed for over 1 ms with the message exhausted.
  const store: PlantStore = createPlantStore({
    storage: memoryStorage(),
    logger,
    webhooks: {
      transport: webhookHttpTransport({ proxy }),
      retrySchedule: [5],
      disableAfterMs: 1,
      allowPrivateDestinations: true,
      pollIntervalMs: 20,
      jitter: 0,
    },
  });
  closing.push(store);
  const { endpoint } = await store.webhooks.endpoints.create(acme, { url: receiver.url('/hook') });
  await store.plants.create(acme, { id: 1, name: 'Fern' });
  await eventually(async () => (await store.webhooks.deliveries.list(acme, { status: 'failed' })).deliveries.length === 1, 'the message exhausted');
  const [delivery] = (await store.webhooks.deliveries.list(acme)).deliveries;
  return { store, endpoint, delivery: delivery!, receiver, lines };
}

describe('webhook endpoints behind an egress proxy', () => {
  it('stay enabled when the proxy is down; the attempt log and the log name the proxy', async () => {
    const { store, endpoint, delivery, receiver, lines } = await setUp(await downProxyUrl());
    expect(delivery.attempts.map((attempt) => attempt.error)).toEqual(['proxy failed: ECONNREFUSED', 'proxy failed: ECONNREFUSED']);
    expect((await store.webhooks.endpoints.get(acme, endpoint.id)).status).toBe('enabled');
    expect(receiver.received).toEqual([]);
    expect(lines).toContainEqual({
      level: 'warn',
      message: 'webhook attempt failed in egress (not the receiver), will retry',
      fields: expect.objectContaining({ endpointId: endpoint.id, error: 'proxy failed: ECONNREFUSED', cause: 'egress' }),
    });
    expect(lines.filter((line) => line.message === 'webhook endpoint disabled: every attempt failed')).toEqual([]);
  });

  it('stay enabled when the proxy answers 407', async () => {
    const proxy = await connectProxy({ credentials: 'egress:s3cret' });
    closing.push(proxy);
    const { store, endpoint, delivery } = await setUp(proxy.url.replace('egress:s3cret@', ''));
    expect(delivery.attempts[0]!.error).toBe('proxy answered CONNECT with 407 Proxy Authentication Required');
    expect(proxy.connects).toHaveLength(2);
    expect((await store.webhooks.endpoints.get(acme, endpoint.id)).status).toBe('enabled');
  });

  it('are disabled when the receiver fails behind a working proxy', async () => {
    const proxy = await connectProxy();
    closing.push(proxy);
    const { store, endpoint, delivery, receiver } = await setUp(proxy.url);
    expect(delivery.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500]);
    expect(receiver.received).toHaveLength(2);
    await eventually(async () => (await store.webhooks.endpoints.get(acme, endpoint.id)).status === 'disabled', 'the endpoint disabled');
  });
});

// Which proxy an attempt takes, as docs/webhooks.md ("Through an egress proxy") says: the variables only with "env".
describe('the proxy an attempt goes through', () => {
  const send = (transport: ReturnType<typeof webhookHttpTransport>, url: string) =>
    transport.send({
      url,
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
      body: '{}',
      timeoutMs: 5_000,
      signal: new AbortController().signal,
    });
  const started = async () => {
    const [egress, receiver] = await Promise.all([connectProxy(), startReceiver()]);
    closing.push(egress, receiver);
    return { egress, receiver };
  };
  const clearProxyVariables = () => {
    for (const name of ['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy', 'npm_config_http_proxy', 'npm_config_proxy']) {
      vi.stubEnv(name, '');
      vi.stubEnv(name.toUpperCase(), '');
    }
  };

  it('takes an explicit proxy URL for every receiver, whatever HTTP_PROXY and NO_PROXY say', async () => {
    const { egress, receiver } = await started();
    clearProxyVariables();
    vi.stubEnv('HTTP_PROXY', await downProxyUrl());
    vi.stubEnv('NO_PROXY', '127.0.0.1');
    expect(await send(webhookHttpTransport({ proxy: egress.url }), receiver.url('/hook'))).toEqual({ kind: 'delivered', statusCode: 204 });
    expect(egress.connects).toEqual([`127.0.0.1:${receiver.port}`]);
  });

  it('with "env", reads the lower-case variable too, and ALL_PROXY when none names the scheme', async () => {
    const { egress, receiver } = await started();
    clearProxyVariables();
    vi.stubEnv('http_proxy', egress.url);
    expect(await send(webhookHttpTransport({ proxy: 'env' }), receiver.url('/lower'))).toEqual({ kind: 'delivered', statusCode: 204 });
    vi.stubEnv('http_proxy', '');
    vi.stubEnv('ALL_PROXY', egress.url);
    expect(await send(webhookHttpTransport({ proxy: 'env' }), receiver.url('/all'))).toEqual({ kind: 'delivered', statusCode: 204 });
    expect(egress.connects).toEqual([`127.0.0.1:${receiver.port}`, `127.0.0.1:${receiver.port}`]);
    expect(receiver.received.map((request) => request.path)).toEqual(['/lower', '/all']);
  });
});
