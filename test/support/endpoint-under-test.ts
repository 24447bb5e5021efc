import { afterEach, expect } from 'vitest';
import { api, type ApiRequest, type ApiResponse } from './api-client.js';
import { eventually } from './eventually.js';
import type { AnyStorageKind } from './storage-kind.js';
import { startTestServer, type TestServer } from './test-server.js';
import { TOKENS } from './test-tokens.js';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.js';

/** A delivery as `GET /webhooks/deliveries` lists it (the fields these tests read). */
export interface DeliveryJson {
  id: string;
  status: string;
  attempts: { error?: string; statusCode?: number }[];
}

/** Tenant a's endpoint to a receiver's /hook, on a test server that delivers. */
export interface EndpointUnderTest {
  readonly server: TestServer;
  readonly receiver: WebhookReceiver;
  /** The endpoint's id. */
  readonly id: string;
  /** Calls the API as tenant a's owner. */
  call(method: string, path: string, request?: ApiRequest): Promise<ApiResponse>;
  /** Creates plant 1 and waits until its delivery to the endpoint failed for good; answers that delivery. */
  failedDelivery(): Promise<DeliveryJson>;
}

/**
 * Call at the top of a test file; the function it answers starts a server that delivers (private destinations
 * allowed), a receiver, and an endpoint made through the API with `endpoint` (its url is the receiver's /hook). Both
 * are closed after each test.
 */
export function endpointUnderTest(): (kind: AnyStorageKind, endpoint: Record<string, unknown>) => Promise<EndpointUnderTest> {
  let server: TestServer | undefined;
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    await server?.close();
  });
  return async (kind, endpoint) => {
    receiver = await startReceiver();
    const started = await startTestServer(kind, { deliver: true, allowPrivateDestinations: true });
    server = started;
    const call = (method: string, path: string, request: ApiRequest = {}) => api(started.url, method, path, { token: TOKENS.owner, ...request });
    const created = await call('POST', '/webhooks/endpoints', { body: JSON.stringify({ url: receiver.url('/hook'), ...endpoint }) });
    expect(created.status, created.text).toBe(201);
    const { id } = created.json as { id: string };
    const delivery = async () => ((await call('GET', `/webhooks/deliveries?endpoint=${id}`)).json as DeliveryJson[])[0];
    return {
      server: started,
      receiver,
      id,
      call,
      async failedDelivery() {
        expect((await call('POST', '/plants', { body: '{"id":1,"name":"Fern"}' })).status).toBe(200);
        await eventually(async () => (await delivery())?.status === 'failed', 'the delivery failed for good');
        return (await delivery())!;
      },
    };
  };
}
