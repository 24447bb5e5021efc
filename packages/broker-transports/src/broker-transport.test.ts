import type { BrokerDestination, WebhookRequest } from '@plant-store/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import type { BrokerClient } from './broker-connection.js';
import { brokerTransport, type ClosableWebhookTransport } from './broker-transport.js';

type Redis = Extract<BrokerDestination, { kind: 'redis' }>;

// The destination policy of a tenant endpoint's broker URL, on a client that only records what it was asked to connect to.

const transports: ClosableWebhookTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
});

function recordingTransport(): { transport: ClosableWebhookTransport; connects: string[] } {
  const connects: string[] = [];
  const client: BrokerClient<Redis> = {
    kind: 'redis',
    async connect(connection) {
      connects.push(connection);
      return { open: true, publish: async () => {}, close: async () => {} };
    },
  };
  const transport = brokerTransport(client);
  transports.push(transport);
  return { transport, connects };
}

function request(url: string, restrictDestination: boolean): WebhookRequest {
  return { url, headers: { 'webhook-id': 'msg_1' }, body: '{}', timeoutMs: 3_000, signal: new AbortController().signal, restrictDestination };
}

describe('brokerTransport for restricted destinations', () => {
  it('fails a non-public IP literal without connecting', async () => {
    const { transport, connects } = recordingTransport();
    expect(await transport.send(request('redis://127.0.0.1:6379/0?stream=plants', true))).toEqual({ kind: 'failed', reason: 'destination not allowed' });
    expect(connects).toEqual([]);
  });

  it('refuses a name that resolves to a non-public address, even beside a trusted connection to it', async () => {
    const { transport, connects } = recordingTransport();
    const url = 'redis://localhost:6379/0?stream=plants';
    expect(await transport.send(request(url, false))).toEqual({ kind: 'delivered' });
    // The trusted connection is pooled apart: it does not let the restricted request skip the check.
    expect(await transport.send(request(url, true))).toEqual({ kind: 'retry', reason: 'destination not allowed' });
    expect(connects).toEqual(['redis://localhost:6379/0']);
  });
});
