import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { SpanKind, trace, TraceFlags, type Attributes, type Span, type SpanContext, type SpanOptions, type SpanStatus, type Tracer } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tracedRequest } from './traced-request.js';

// The API's interfaces only: a tracer whose spans record what is set on them.
interface RecordedSpan {
  name: string;
  readonly attributes: Attributes;
  status?: SpanStatus;
  ended: boolean;
}

const recorded: RecordedSpan[] = [];
// What each span was started with: the attributes a sampler sees.
const startOptions: (SpanOptions | undefined)[] = [];

function recordingSpan(name: string, options: SpanOptions | undefined): Span {
  const spanContext: SpanContext = { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), traceFlags: TraceFlags.SAMPLED };
  const record: RecordedSpan = { name, attributes: { ...options?.attributes }, ended: false };
  startOptions.push(options);
  recorded.push(record);
  const span: Span = {
    spanContext: () => spanContext,
    setAttribute: (key, value) => ((record.attributes[key] = value), span),
    setAttributes: (attributes) => (Object.assign(record.attributes, attributes), span),
    addEvent: () => span,
    addLink: () => span,
    addLinks: () => span,
    setStatus: (status) => ((record.status = status), span),
    updateName: (updated) => ((record.name = updated), span),
    end: () => void (record.ended = true),
    isRecording: () => true,
    recordException: () => {},
  };
  return span;
}

const tracer = { startSpan: (name: string, options?: SpanOptions) => recordingSpan(name, options) } as unknown as Tracer;

function request(method: string, statusCode: number, template: string | undefined) {
  const req = { method, headers: {}, socket: {}, httpVersion: '1.1' } as unknown as IncomingMessage;
  const res = { statusCode } as ServerResponse;
  return tracedRequest(req, res, '/api', async (end) => end?.(template));
}

describe('tracedRequest', () => {
  beforeAll(() => void trace.setGlobalTracerProvider({ getTracer: () => tracer }));
  afterAll(() => trace.disable());
  beforeEach(() => void ((recorded.length = 0), (startOptions.length = 0)));

  it('names the server span by method and full route template, with the conventions\u2019 attributes', async () => {
    await request('GET', 200, '/plants/{id}');
    expect(recorded).toEqual([
      {
        name: 'GET /api/plants/{id}',
        attributes: {
          'http.request.method': 'GET',
          'url.scheme': 'http',
          'network.protocol.version': '1.1',
          'http.route': '/api/plants/{id}',
          'http.response.status_code': 200,
        },
        ended: true,
      },
    ]);
  });

  it('starts the span with the method, scheme and protocol version, where a sampler sees them', async () => {
    await request('POST', 200, '/plants');
    expect(startOptions[0]).toEqual({
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': 'POST', 'url.scheme': 'http', 'network.protocol.version': '1.1' },
    });
    await request('PROPFIND', 200, undefined);
    expect(startOptions[1]?.attributes).toMatchObject({ 'http.request.method': '_OTHER', 'http.request.method_original': 'PROPFIND' });
  });

  it('records a method the conventions do not know as _OTHER, keeping the original apart, and a 5xx as an error', async () => {
    await request('PROPFIND', 503, undefined);
    expect(recorded).toEqual([
      {
        name: 'HTTP',
        attributes: {
          'http.request.method': '_OTHER',
          'http.request.method_original': 'PROPFIND',
          'url.scheme': 'http',
          'network.protocol.version': '1.1',
          'http.response.status_code': 503,
          'error.type': '503',
        },
        status: { code: 2 },
        ended: true,
      },
    ]);
  });

  it('names each method of one route apart, an unknown one HTTP, ', async () => {
    await request('GET', 200, '/plants');
    await request('POST', 201, '/plants');
    await request('PROPFIND', 405, '/plants');
    await request('GET', 200, '/plants');
    expect(recorded.map((span) => [span.name, span.attributes['http.route']])).toEqual([
      ['GET /api/plants', '/api/plants'],
      ['POST /api/plants', '/api/plants'],
      ['HTTP /api/plants', '/api/plants'],
      ['GET /api/plants', '/api/plants'],
    ]);
  });

  it('keeps every method the conventions know as it is', async () => {
    for (const method of ['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']) await request(method, 204, '/plants');
    expect(recorded.map((span) => span.attributes['http.request.method'])).toEqual([
      'CONNECT',
      'DELETE',
      'GET',
      'HEAD',
      'OPTIONS',
      'PATCH',
      'POST',
      'PUT',
      'TRACE',
    ]);
  });
});
