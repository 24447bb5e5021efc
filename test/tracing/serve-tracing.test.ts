import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli-process.js';
import { CLIENT_KIND, SERVER_KIND, startOtlpSink, type ReceivedSpan } from '../support/otlp-sink.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';

// Tracing end to end: real `plant-store serve` processes export to a real
// OTLP/HTTP endpoint; a client request that carries a traceparent is followed
// to the server span, the storage span that queued the webhook, the attempt
// span linked to it, and the traceparent the receiver got.

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const TOKEN = 's3cret';
const TENANT = 'acme-tenant';
/** What the client's own tracing would send: its trace, and its span as the parent. */
const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';
const PLANT_ID = 4242;
/** Traces of the client's other requests, one each. */
const LIST_TRACE = '0af7651916cd43dd8448eb211c803191';
const ENDPOINT_TRACE = '0af7651916cd43dd8448eb211c803192';
const STATS_TRACE = '0af7651916cd43dd8448eb211c803193';

interface ReceivedWebhook {
  readonly webhookId: string;
  readonly traceparent: string | undefined;
  readonly status: number;
}

/** A real receiver on 127.0.0.1 answering `status()` (204, or 503 while it should refuse). */
async function startReceiver(status: () => number) {
  const received: ReceivedWebhook[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = status();
      received.push({
        webhookId: String(req.headers['webhook-id']),
        traceparent: typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined,
        status: answer,
      });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

const dir = mkdtempSync(join(tmpdir(), 'plant-store-tracing-'));
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * The environment that turns tracing on, exporting to `sink`. The batch waits
 * a minute: every span the tests see was sent by the flush at shutdown.
 */
function tracingEnv(sinkUrl: string, service: string): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_SERVICE_NAME: service };
}

/** A request of the client's, sent as the child of its span in a trace of its own: `00-<traceId>-<client span>-01`. */
function tracedFetch(service: ServeProcess, path: string, traceId: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${service.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', traceparent: `00-${traceId}-${CLIENT_SPAN}-01` },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

/** The names of the storage spans in the trace, each checked to be a child of the trace's one SERVER span, named `server`. */
function storageSpansUnder(spans: readonly ReceivedSpan[], traceId: string, server: string): string[] {
  const inTrace = spans.filter((span) => span.traceId === traceId);
  const serverSpans = inTrace.filter((span) => span.kind === SERVER_KIND);
  expect(serverSpans.map((span) => span.name)).toEqual([server]);
  const children = inTrace.filter((span) => span !== serverSpans[0]);
  for (const child of children) expect(child, child.name).toMatchObject({ kind: CLIENT_KIND, parentSpanId: serverSpans[0]!.spanId });
  return children.map((span) => span.name).sort();
}

async function createPlant(service: ServeProcess): Promise<Response> {
  return fetch(`${service.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
    body: JSON.stringify({ id: PLANT_ID, name: 'Ficus' }),
  });
}

/** The spans of the client's request: its SERVER span (child of the client's span) and the storage span that wrote the plant. */
function requestSpans(spans: readonly ReceivedSpan[], service: string, dbSystem: string) {
  const server = spans.find((span) => span.kind === SERVER_KIND && span.traceId === CLIENT_TRACE && span.name === 'POST /plants');
  expect(server).toMatchObject({
    service,
    parentSpanId: CLIENT_SPAN,
    attributes: { 'http.request.method': 'POST', 'http.route': '/plants', 'http.response.status_code': 200 },
  });
  const write = spans.find((span) => span.parentSpanId === server!.spanId && span.name === 'create plants');
  expect(write).toMatchObject({
    service,
    kind: CLIENT_KIND,
    traceId: CLIENT_TRACE,
    attributes: { 'db.system.name': dbSystem, 'db.operation.name': 'create', 'db.collection.name': 'plants' },
  });
  return { server: server!, write: write! };
}

/** The attempt span the receiver answered with `status`, checked against what the receiver saw. */
function attemptSpan(spans: readonly ReceivedSpan[], webhook: ReceivedWebhook): ReceivedSpan {
  const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(webhook.traceparent ?? '') ?? [];
  const attempt = spans.find((span) => span.traceId === traceId && span.spanId === spanId);
  expect(attempt, `the span the receiver's traceparent ${webhook.traceparent} names`).toBeDefined();
  expect(attempt).toMatchObject({
    name: 'POST',
    kind: CLIENT_KIND,
    attributes: {
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'plant_store.webhook.message_id': webhook.webhookId,
      'plant_store.webhook.event_type': 'plant.created',
      'http.response.status_code': webhook.status,
    },
  });
  // A new trace of its own: the attempt belongs to no request.
  expect(attempt!.traceId).not.toBe(CLIENT_TRACE);
  expect(attempt!.parentSpanId).toBeUndefined();
  return attempt!;
}

/** No span names a tenant, token, plant id, query string or receiver URL. */
function expectNothingPrivate(spans: readonly ReceivedSpan[], receiverUrl: string): void {
  const text = JSON.stringify(spans);
  for (const secret of [TOKEN, TENANT, 'secret-query', receiverUrl]) expect(text).not.toContain(secret);
  // The plant id as a path segment or a value of its own: its digits alone turn up inside random hex ids
  // (a message id held "4242" one run in a hundred or so).
  const id = String(PLANT_ID);
  expect(text).not.toMatch(new RegExp(`/${id}\\b|"${id}"|:${id}[,}]`));
  for (const span of spans) expect(span.attributes).not.toHaveProperty('url.full');
}

describe('tracing with OpenTelemetry (serve, OTLP/HTTP)', () => {
  it('follows a request from the client to the receiver on SQLite: server span, storage span, linked attempt, traceparent sent on', async () => {
    const sink = await startOtlpSink();
    cleanups.push(sink.close);
    const receiver = await startReceiver(() => 204);
    cleanups.push(() => closeServer(receiver.server));
    const service = await startServe(['--port=0', '--storage=sqlite', `--db=${join(dir, 'traced.db')}`, '--tokens', `${TOKEN}=${TENANT}`], {
      env: { ...tracingEnv(sink.url, 'plant-store-sqlite'), PLANT_STORE_WEBHOOKS: JSON.stringify([{ url: receiver.url, secret: SECRET }]) },
    });
    cleanups.push(() => service.stop('SIGKILL'));

    expect((await createPlant(service)).status).toBe(200);
    const read = await fetch(`${service.url}/plants/${PLANT_ID}?secret-query=1`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(read.status).toBe(200);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 10_000 });
    // Storage calls after several awaits (the listing's are made while its response is written) still have
    // the request's span as parent: the context is handed on explicitly, as no context follows promises.
    // Two requests at once: neither's storage spans may land in the other's trace.
    const [listing, created] = await Promise.all([
      tracedFetch(service, '/plants?limit=1000', LIST_TRACE),
      tracedFetch(service, '/webhooks/endpoints', ENDPOINT_TRACE, { method: 'POST', body: { url: 'https://receiver.example/hook' } }),
    ]);
    expect([listing.status, created.status]).toEqual([200, 201]);
    expect(await listing.json()).toEqual([{ id: PLANT_ID, name: 'Ficus' }]);
    const { id: endpointId } = (await created.json()) as { id: string };
    expect((await tracedFetch(service, `/webhooks/endpoints/${endpointId}/stats`, STATS_TRACE)).status).toBe(200);
    // The stop flushes what the batch has not sent yet.
    expect((await service.stop()).code).toBe(0);

    const { server, write } = requestSpans(sink.spans, 'plant-store-sqlite', 'sqlite');
    const attempt = attemptSpan(sink.spans, receiver.received[0]!);
    expect(attempt).toMatchObject({ service: 'plant-store-sqlite', attributes: { 'plant_store.webhook.outcome': 'delivered' } });
    expect(attempt.links).toEqual([{ traceId: CLIENT_TRACE, spanId: write.spanId }]);
    expect(attempt.attributes).not.toHaveProperty('http.request.resend_count');
    // The dispatcher the write woke works outside the request's trace: its claims and records are not the request's children.
    expect(
      sink.spans
        .filter((span) => span.traceId === CLIENT_TRACE)
        .map((span) => span.name)
        .sort(),
    ).toEqual(['POST /plants', 'create plants']);
    // The read: its route template, never its id or query.
    expect(sink.spans.find((span) => span.kind === SERVER_KIND && span.name === 'GET /plants/{id}')).toMatchObject({
      attributes: { 'http.route': '/plants/{id}', 'http.response.status_code': 200 },
    });
    // A large page: its last id first, then the rows, streamed.
    expect(storageSpansUnder(sink.spans, LIST_TRACE, 'GET /plants')).toEqual(['idAtOffset plants', 'list plants']);
    expect(storageSpansUnder(sink.spans, ENDPOINT_TRACE, 'POST /webhooks/endpoints')).toEqual(['create webhook_endpoints']);
    expect(storageSpansUnder(sink.spans, STATS_TRACE, 'GET /webhooks/endpoints/{id}/stats')).toEqual([
      'endpointAttemptStats webhook_deliveries',
      'get webhook_endpoints',
    ]);
    expectNothingPrivate(sink.spans, receiver.url);
    // Sent as protobuf, OTLP's default encoding, when no protocol is set.
    expect([...sink.encodings]).toEqual(['protobuf']);
    // The request's log line names its trace and span.
    const line = service.logs().find((entry) => entry['msg'] === 'request' && entry['method'] === 'POST');
    expect(line).toMatchObject({ traceId: CLIENT_TRACE, spanId: server.spanId });
  });

  it('logs a warning when the collector refuses the spans', async () => {
    const collector = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(400, { 'content-type': 'text/plain' }).end('refused'));
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => closeServer(collector));
    const url = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const service = await startServe(['--port=0', '--storage=memory', '--tokens', `${TOKEN}=${TENANT}`], {
      env: { ...tracingEnv(url, 'plant-store-refused'), OTEL_BSP_SCHEDULE_DELAY: '20' },
    });
    cleanups.push(() => service.stop('SIGKILL'));
    expect((await fetch(`${service.url}/plants`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    await vi.waitFor(
      () => expect(service.logs()).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'tracing: an export of spans failed; they are dropped' })),
      { timeout: 10_000 },
    );
  });

  describe.skipIf(!postgresAvailable)('on PostgreSQL', () => {
    const schemas = testSchemas();
    cleanups.push(() => schemas.dropAll());

    it('links the attempt another instance makes, after the creating one stopped, to the write that queued it', { timeout: 60_000 }, async () => {
      const sink = await startOtlpSink();
      cleanups.push(sink.close);
      let refusing = true;
      const receiver = await startReceiver(() => (refusing ? 503 : 204));
      cleanups.push(() => closeServer(receiver.server));
      const schema = schemas.next();
      const start = async (name: string, protocol: Record<string, string> = {}) => {
        const service = await startServe(['--port=0', '--storage=postgres', '--db-schema', schema, '--tokens', `${TOKEN}=${TENANT}`], {
          env: {
            ...tracingEnv(sink.url, name),
            ...protocol,
            PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL,
            PLANT_STORE_WEBHOOKS: JSON.stringify([{ url: receiver.url, secret: SECRET }]),
            PLANT_STORE_WEBHOOK_RETRY: Array.from({ length: 100 }, () => '100ms').join(','),
          },
        });
        cleanups.push(() => service.stop('SIGKILL'));
        return service;
      };

      // Instance a takes the plant; its attempts are refused until it stops. It exports JSON, b protobuf (the default).
      const a = await start('plant-store-a', { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' });
      expect((await createPlant(a)).status).toBe(200);
      await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThan(0), { timeout: 10_000 });
      expect((await a.stop()).code).toBe(0);
      // Instance b, started afterwards on the same schema, delivers it.
      refusing = false;
      const b = await start('plant-store-b');
      await vi.waitFor(() => expect(receiver.received.some((webhook) => webhook.status === 204)).toBe(true), { timeout: 10_000 });
      expect((await b.stop()).code).toBe(0);

      const { write } = requestSpans(sink.spans, 'plant-store-a', 'postgresql');
      const first = attemptSpan(sink.spans, receiver.received[0]!);
      expect(first).toMatchObject({ service: 'plant-store-a', attributes: { 'plant_store.webhook.outcome': 'retry' }, status: { code: 2 } });
      const delivered = attemptSpan(sink.spans, receiver.received.find((webhook) => webhook.status === 204)!);
      expect(delivered).toMatchObject({
        service: 'plant-store-b',
        attributes: { 'plant_store.webhook.outcome': 'delivered', 'http.request.resend_count': expect.any(Number) },
      });
      expect(delivered.attributes['http.request.resend_count']).toBeGreaterThanOrEqual(1);
      // Every attempt, from either instance, links to the one write that queued the message.
      for (const webhook of receiver.received) expect(attemptSpan(sink.spans, webhook).links).toEqual([{ traceId: CLIENT_TRACE, spanId: write.spanId }]);
      expectNothingPrivate(sink.spans, receiver.url);
      expect([...sink.encodings].sort()).toEqual(['json', 'protobuf']);
    });
  });
});
