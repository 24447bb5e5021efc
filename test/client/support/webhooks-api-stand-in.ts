import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A STAND-IN for the webhook endpoints API of SPEC §9, NOT the real service:
// just enough of the routes, in memory, to check the requests the typed
// client sends and how it parses the answers, while the real routes are
// being built. Once they exist, test/client/webhooks-client.test.ts should
// run against startTestServer instead (the assertions stay).

export interface RecordedRequest {
  readonly method: string;
  /** Path and query as sent. */
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

interface Endpoint {
  id: string;
  url: string;
  eventTypes: string[];
  description?: string;
  rateLimit?: number;
  status: 'enabled' | 'disabled';
  secret: string;
  createdAt: string;
  updatedAt: string;
}

/** A delivery as stored: `payload` is raw JSON text, so int64 ids stay exact on the wire. */
export interface StandInDelivery {
  readonly id: string;
  readonly endpointId: string;
  readonly eventType: string;
  readonly payload: string;
  status: 'pending' | 'delivered' | 'failed';
  readonly attempts: { at: string; durationMs: number; statusCode?: number; error?: string }[];
  readonly nextAttemptAt?: string;
  readonly createdAt: string;
}

export interface WebhooksApiStandIn {
  readonly url: string;
  /** Token with both webhook scopes; `READ_ONLY_TOKEN` has webhooks:read only. */
  readonly token: string;
  readonly requests: RecordedRequest[];
  readonly deliveries: StandInDelivery[];
  /** Replaces the answer to the next request (to serve broken responses). */
  answerNextWith(status: number, body: string, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

export const READ_ONLY_TOKEN = 'stand-in-reader';
const TOKEN = 'stand-in-token';
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

type Reply = { status: number; body?: string; headers?: Record<string, string> };
const json = (status: number, value: unknown): Reply => ({ status, body: JSON.stringify(value) });
const error = (status: number, message: string): Reply => json(status, { error: status, message });
const withoutSecret = ({ secret: _secret, ...endpoint }: Endpoint) => endpoint;

function deliveryJson(delivery: StandInDelivery): string {
  const { payload, ...rest } = delivery;
  return `${JSON.stringify(rest).slice(0, -1)},"payload":${payload}}`;
}

/** Keyset page of `items` (already in listing order) after `after`, with a Link when more remain. */
function page<T extends { id: string }>(items: T[], query: URLSearchParams, path: string, write: (item: T) => string): Reply {
  const after = query.get('after');
  const start = after === null ? 0 : items.findIndex((item) => item.id === after) + 1;
  const limit = query.get('limit') === null ? Infinity : Number(query.get('limit'));
  const slice = items.slice(start, start + limit);
  const headers: Record<string, string> = {};
  if (start + limit < items.length) {
    const next = new URLSearchParams(query);
    next.set('after', slice.at(-1)!.id);
    headers.link = `<${path}?${next}>; rel="next"`;
  }
  return { status: 200, body: `[${slice.map(write).join(',')}]`, headers };
}

type State = { endpoints: Endpoint[]; deliveries: StandInDelivery[] };

/** Routes on one endpoint (`/webhooks/endpoints/{id}…`). */
function routeEndpoint(state: State, endpoint: Endpoint, key: string, body: Record<string, unknown>, now: () => string): Reply {
  switch (key) {
    case 'GET endpoints/{id}':
      return json(200, withoutSecret(endpoint));
    case 'PATCH endpoints/{id}':
      Object.assign(endpoint, body, { updatedAt: now() });
      return json(200, withoutSecret(endpoint));
    case 'DELETE endpoints/{id}':
      state.endpoints.splice(state.endpoints.indexOf(endpoint), 1);
      return { status: 204 };
    case 'GET endpoints/{id}/secret':
      return json(200, { secret: endpoint.secret });
    case 'POST endpoints/{id}/rotate-secret':
      endpoint.secret = typeof body['secret'] === 'string' ? body['secret'] : newSecret();
      return json(200, { secret: endpoint.secret });
    case 'POST endpoints/{id}/recover': {
      const since = Date.parse(String(body['since']));
      const requeued = state.deliveries.filter((item) => item.endpointId === endpoint.id && item.status === 'failed' && Date.parse(item.createdAt) >= since);
      for (const item of requeued) item.status = 'pending';
      return json(202, { requeued: requeued.length });
    }
  }
  return error(404, 'not found');
}

/** Routes on the deliveries (`/webhooks/deliveries…`). */
function routeDeliveries(state: State, key: string, id: string | undefined, query: URLSearchParams, pathname: string): Reply {
  const delivery = state.deliveries.find((item) => item.id === id);
  switch (key) {
    case 'GET deliveries': {
      const matching = state.deliveries.filter(
        (item) => [null, item.endpointId].includes(query.get('endpoint')) && [null, item.status as string].includes(query.get('status')),
      );
      return page([...matching].reverse(), query, pathname, deliveryJson);
    }
    case 'GET deliveries/{id}':
      return delivery ? { status: 200, body: deliveryJson(delivery) } : error(404, `delivery ${id} not found`);
    case 'POST deliveries/{id}/resend':
      if (!delivery) return error(404, `delivery ${id} not found`);
      delivery.status = 'pending';
      return { status: 202 };
  }
  return error(404, 'not found');
}

function route(state: State, request: RecordedRequest, now: () => string): Reply {
  const { pathname, searchParams } = new URL(request.url, 'http://stand-in');
  const body = request.body === '' ? {} : (JSON.parse(request.body) as Record<string, unknown>);
  const parts = pathname.split('/').slice(1).map(decodeURIComponent);
  const key = `${request.method} ${parts[1]}${parts.length > 2 ? '/{id}' : ''}${parts[3] ? `/${parts[3]}` : ''}`;
  if (parts[1] === 'deliveries') return routeDeliveries(state, key, parts[2], searchParams, pathname);
  if (key === 'GET endpoints') return page(state.endpoints, searchParams, pathname, (item) => JSON.stringify(withoutSecret(item)));
  if (key === 'POST endpoints') {
    const at = now();
    const defaults = { id: `ep_${state.endpoints.length + 1}`, eventTypes: ['plant.created'], status: 'enabled', secret: newSecret() };
    const created = { ...defaults, ...body, createdAt: at, updatedAt: at } as Endpoint;
    state.endpoints.push(created);
    return json(201, created);
  }
  const endpoint = state.endpoints.find((item) => item.id === parts[2]);
  return endpoint ? routeEndpoint(state, endpoint, key, body, now) : error(404, `webhook endpoint ${parts[2]} not found`);
}

/** The 401 or 403 the real service would give, or undefined when the token may do this. */
function refusal(request: RecordedRequest): Reply | undefined {
  const auth = request.headers.authorization;
  if (auth !== `Bearer ${TOKEN}` && auth !== `Bearer ${READ_ONLY_TOKEN}`) return error(401, 'invalid bearer token');
  if (auth === `Bearer ${READ_ONLY_TOKEN}` && request.method !== 'GET') {
    const challenge = 'Bearer realm="plant-store", error="insufficient_scope", scope="webhooks:write"';
    return { ...error(403, 'this operation requires the webhooks:write scope'), headers: { 'www-authenticate': challenge } };
  }
  return undefined;
}

/** Starts the stand-in on 127.0.0.1:0. Times it hands out advance by one second per write, from a fixed start. */
export async function startWebhooksApiStandIn(): Promise<WebhooksApiStandIn> {
  const state: State = { endpoints: [], deliveries: [] };
  const requests: RecordedRequest[] = [];
  let clock = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
  const now = () => new Date((clock += 1000)).toISOString();
  let override: Reply | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      let reply: Reply;
      if (override) [reply, override] = [override, undefined];
      else reply = refusal(request) ?? route(state, request, now);
      const headers = { 'x-request-id': `stand-in-${requests.length}`, ...(reply.body === undefined ? {} : { 'content-type': 'application/json' }), ...reply.headers };
      res.writeHead(reply.status, headers).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: TOKEN,
    requests,
    deliveries: state.deliveries,
    answerNextWith(status, body, headers) {
      override = { status, body, headers };
    },
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    },
  };
}
