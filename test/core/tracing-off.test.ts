import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { describe, expect, it, vi } from 'vitest';
import { createPlantStore, staticTokens } from '@plant-store/core';
import type { WebhookRequest, WebhookTransport } from '@plant-store/core/adapter';
import { createRequestListener } from '@plant-store/http-node';
import { memoryStorage } from '@plant-store/storage-memory';

// Libraries depend on @opentelemetry/api only: with no SDK installed (as in
// this process), tracing must leave nothing behind, even for a caller that
// sends a traceparent of its own.

describe('tracing without an OpenTelemetry SDK', () => {
  it('adds nothing observable: no traceparent sent to receivers or stored with deliveries, no active span anywhere', async () => {
    const sent: WebhookRequest[] = [];
    const activeWhileSending: unknown[] = [];
    const transport: WebhookTransport = {
      send: async (request) => {
        sent.push(request);
        activeWhileSending.push(trace.getActiveSpan());
        return { kind: 'delivered', statusCode: 204 };
      },
    };
    const store = createPlantStore({
      storage: memoryStorage(),
      authenticator: staticTokens([{ token: 'tok', tenant: 'acme' }]),
      webhooks: { transport, subscriptions: [{ url: 'https://receiver.example/hook', secret: `whsec_${Buffer.alloc(32, 3).toString('base64')}` }] },
    });
    const server = createServer(createRequestListener(store));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/plants`, {
        method: 'POST',
        headers: { authorization: 'Bearer tok', 'content-type': 'application/json', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        body: '{"id":1,"name":"Ficus"}',
      });
      expect(response.status).toBe(200);
      await vi.waitFor(() => expect(sent).toHaveLength(1));
      expect(Object.keys(sent[0]!.headers).sort()).toEqual([
        'content-type',
        'plant-store-event',
        'user-agent',
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
      ]);
      expect(activeWhileSending).toEqual([undefined]);
      const [delivery] = await store.allTenants.webhooks.list();
      expect(delivery).toBeDefined();
      expect(delivery).not.toHaveProperty('traceparent');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
    }
  });
});
