/**
 * A decoder of OTLP's `ExportTraceServiceRequest` protobuf (what the
 * service's exporter sends, as `@opentelemetry/exporter-trace-otlp-proto`
 * does), written against the OTLP .proto field numbers, into the shape
 * OTLP/JSON has (hex ids, attribute `AnyValue`s), so the test sink reads
 * both encodings alike. Only the fields the tests look at are kept; the
 * others are skipped by their wire type.
 */

type Fields = Map<number, (bigint | Uint8Array)[]>;

/** The fields of one message, by number: varints and fixed-width numbers as bigint, length-delimited as bytes. */
function fields(bytes: Uint8Array): Fields {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const result: Fields = new Map();
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = bytes[at++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const [field, wire] = [key >>> 3, key & 7];
    let value: bigint | Uint8Array;
    if (wire === 0) value = varint();
    else if (wire === 1) [value, at] = [view.getBigUint64(at, true), at + 8];
    else if (wire === 5) [value, at] = [BigInt(view.getUint32(at, true)), at + 4];
    else if (wire === 2) {
      const length = Number(varint());
      [value, at] = [bytes.subarray(at, at + length), at + length];
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
    const values = result.get(field);
    if (values === undefined) result.set(field, [value]);
    else values.push(value);
  }
  return result;
}

const messages = (f: Fields, n: number) => (f.get(n) ?? []).map((value) => fields(value as Uint8Array));
const bytesOf = (f: Fields, n: number) => f.get(n)?.[0] as Uint8Array | undefined;
const text = (f: Fields, n: number) => Buffer.from(bytesOf(f, n) ?? new Uint8Array()).toString('utf8');
const hex = (f: Fields, n: number) => Buffer.from(bytesOf(f, n) ?? new Uint8Array()).toString('hex');
const number = (f: Fields, n: number) => f.get(n)?.[0] as bigint | undefined;

function anyValue(f: Fields): Record<string, string | number | boolean> {
  if (f.has(1)) return { stringValue: text(f, 1) };
  if (f.has(2)) return { boolValue: number(f, 2) === 1n };
  if (f.has(3)) return { intValue: BigInt.asIntN(64, number(f, 3)!).toString() };
  if (f.has(4)) {
    const buffer = new DataView(new ArrayBuffer(8));
    buffer.setBigUint64(0, number(f, 4)!, true);
    return { doubleValue: buffer.getFloat64(0, true) };
  }
  return {};
}

const keyValues = (f: Fields, n: number) => messages(f, n).map((kv) => ({ key: text(kv, 1), value: anyValue(messages(kv, 2)[0] ?? new Map()) }));

/** The request as OTLP/JSON would have written it (the parts the sink reads). */
export function decodeTraceRequest(body: Uint8Array): unknown {
  return {
    resourceSpans: messages(fields(body), 1).map((resourceSpans) => ({
      resource: { attributes: keyValues(messages(resourceSpans, 1)[0] ?? new Map(), 1) },
      scopeSpans: messages(resourceSpans, 2).map((scopeSpans) => ({
        spans: messages(scopeSpans, 2).map((span) => {
          const status = messages(span, 15)[0];
          return {
            traceId: hex(span, 1),
            spanId: hex(span, 2),
            ...(span.has(4) && hex(span, 4) !== '' ? { parentSpanId: hex(span, 4) } : {}),
            name: text(span, 5),
            kind: Number(number(span, 6) ?? 0n),
            attributes: keyValues(span, 9),
            links: messages(span, 13).map((link) => ({ traceId: hex(link, 1), spanId: hex(link, 2) })),
            ...(status ? { status: { ...(status.has(2) ? { message: text(status, 2) } : {}), code: Number(number(status, 3) ?? 0n) } } : {}),
          };
        }),
      })),
    })),
  };
}

/**
 * The number of spans in a request, read without decoding them: the bench's
 * sink receives thousands of spans a second on the load generator's core, and
 * a full decode there would slow the load generator and show up as tracing's
 * cost in the service's figures.
 */
export function countTraceRequestSpans(body: Uint8Array): number {
  let count = 0;
  // ExportTraceServiceRequest.resource_spans (1) → ResourceSpans.scope_spans (2) → ScopeSpans.spans (2).
  forEachLengthDelimited(body, 0, body.length, 1, (start, end) =>
    forEachLengthDelimited(body, start, end, 2, (scopeStart, scopeEnd) =>
      forEachLengthDelimited(body, scopeStart, scopeEnd, 2, () => {
        count++;
      }),
    ),
  );
  return count;
}

/** Calls `visit` with the bounds of each length-delimited field numbered `wanted` in `bytes[start, end)`, skipping every other field. */
function forEachLengthDelimited(bytes: Uint8Array, start: number, end: number, wanted: number, visit: (start: number, end: number) => void): void {
  let at = start;
  const varint = (): number => {
    let value = 0;
    for (let scale = 1; ; scale *= 128) {
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
  };
  while (at < end) {
    const key = varint();
    const wire = key & 7;
    if (wire === 0) varint();
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = varint();
      if (key >>> 3 === wanted) visit(at, at + length);
      at += length;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
}
