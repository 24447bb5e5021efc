import { describe, expect, it } from 'vitest';
import { countTraceRequestSpans, decodeTraceRequest } from '../support/otlp-protobuf.js';
import { startOtlpSink } from '../support/otlp-sink.js';

/** A length-delimited protobuf field: key, length, then the parts' bytes. */
function field(number: number, ...parts: Uint8Array[]): Uint8Array {
  const body = Buffer.concat(parts);
  return Buffer.concat([varint((number << 3) | 2), varint(body.length), body]);
}

function varint(value: number): Uint8Array {
  const bytes: number[] = [];
  while (value > 0x7f) {
    bytes.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  bytes.push(value);
  return Uint8Array.from(bytes);
}

const text = (value: string) => Buffer.from(value);
const kind = Uint8Array.from([6 << 3, 2]); // Span.kind = SERVER (a varint field the counter skips)

/** A span with ids, a name, a kind and a long attribute (a length of two bytes). */
const span = (name: string) =>
  field(
    2,
    field(1, Buffer.alloc(16, 1)),
    field(2, Buffer.alloc(8, 2)),
    field(5, text(name)),
    kind,
    field(9, field(1, text('long')), field(2, field(1, text('x'.repeat(300))))),
  );

// Two resources; the first with two scopes (two spans, then one), the second with one span.
const request = Buffer.concat([
  field(
    1,
    field(1, field(1, field(1, text('service.name')), field(2, field(1, text('one'))))),
    field(2, field(1, field(1, text('scope-a'))), span('a'), span('b')),
    field(2, span('c')),
  ),
  field(1, field(2, field(1, field(1, text('scope-b'))), span('d'))),
]);

describe('the OTLP sink', () => {
  it('counts the spans of a protobuf request without decoding them, as many as decoding finds', () => {
    expect(countTraceRequestSpans(request)).toBe(4);
    const decoded = decodeTraceRequest(request) as { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] };
    const names = decoded.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans.map((one) => one.name)));
    expect(names).toEqual(['a', 'b', 'c', 'd']);
    expect(countTraceRequestSpans(new Uint8Array())).toBe(0);
  });

  it('without keeping spans, counts those it receives', async () => {
    const sink = await startOtlpSink({ keep: false });
    try {
      for (let index = 0; index < 2; index++) {
        const response = await fetch(`${sink.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: request });
        expect(response.status).toBe(200);
      }
      expect(sink.received()).toBe(8);
      expect(sink.spans).toEqual([]);
    } finally {
      await sink.close();
    }
  });
});
