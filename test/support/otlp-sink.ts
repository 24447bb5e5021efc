import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTraceRequestSpans, decodeTraceRequest } from './otlp-protobuf.js';

/** One attribute value as OTLP/JSON writes it. */
type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };

/** A span as received over OTLP/HTTP JSON, flattened with its resource's service name and attributes as a plain object. */
export interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  readonly status?: { readonly code?: number; readonly message?: string };
}

export const SERVER_KIND = 2;
export const CLIENT_KIND = 3;

/**
 * A real OTLP/HTTP trace endpoint on 127.0.0.1 (port 0): accepts `POST
 * /v1/traces` with protobuf or JSON bodies (what the service's protobuf
 * exporter and `@opentelemetry/exporter-trace-otlp-http` send) and keeps
 * every span, with the encoding it came in; `keep: false` only counts them
 * (the bench's sink), without decoding protobuf bodies.
 */
export async function startOtlpSink(options: { keep?: boolean } = {}) {
  const keep = options.keep ?? true;
  const spans: ReceivedSpan[] = [];
  const encodings = new Set<'protobuf' | 'json'>();
  let received = 0;
  // Spans per export request, in the order they came.
  const batchSizes: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const type = String(req.headers['content-type']);
      const encoding = type.startsWith('application/x-protobuf') ? 'protobuf' : type.startsWith('application/json') ? 'json' : undefined;
      if (req.method !== 'POST' || req.url !== '/v1/traces' || encoding === undefined) {
        res.writeHead(415).end();
        return;
      }
      encodings.add(encoding);
      const raw = Buffer.concat(chunks);
      if (!keep && encoding === 'protobuf') {
        const count = countTraceRequestSpans(raw);
        received += count;
        batchSizes.push(count);
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        return;
      }
      const body = (encoding === 'json' ? JSON.parse(raw.toString('utf8')) : decodeTraceRequest(raw)) as ExportRequest;
      const arrived = flatten(body);
      received += arrived.length;
      batchSizes.push(arrived.length);
      if (keep) for (const span of arrived) spans.push(span);
      // An empty ExportTraceServiceResponse in the request's encoding.
      if (encoding === 'json') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    /** The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    /** The encodings spans came in. */
    encodings,
    received: () => received,
    /** How many spans each export request carried. */
    batchSizes,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: AnyValue }[] };
    scopeSpans?: { spans?: RawSpan[] }[];
  }[];
}

interface RawSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: AnyValue }[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
}

function flatten(body: ExportRequest): ReceivedSpan[] {
  const result: ReceivedSpan[] = [];
  for (const resourceSpans of body.resourceSpans ?? []) {
    const resource = attributes(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        result.push({
          service: String(resource['service.name']),
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
          name: span.name,
          kind: span.kind,
          attributes: attributes(span.attributes),
          links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
          ...(span.status ? { status: span.status } : {}),
        });
      }
    }
  }
  return result;
}

function attributes(list: { key: string; value: AnyValue }[] | undefined): Record<string, string | number | boolean> {
  const result: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    result[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.boolValue ?? value.doubleValue ?? '';
  }
  return result;
}
