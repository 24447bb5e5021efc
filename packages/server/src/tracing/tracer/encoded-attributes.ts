import type { AttributeValue } from '@opentelemetry/api';
import { writeKeyValue } from '../otlp-trace-protobuf.js';
import { LENGTH_DELIMITED, type ProtobufWriter } from '../protobuf-writer.js';

/**
 * Writes a span's attributes (key, value, key, value…) as its field 9
 * `KeyValue`s, copying encodings made before instead of encoding again.
 *
 * Most spans repeat the attributes of spans before them, all of them: a
 * storage call's three never change, a request's five change with its
 * route, method and status. So the whole run of a span's attributes is
 * kept, under its first key, and a span with the same keys and values in
 * the same order is one copy. A span whose run is new is written attribute
 * by attribute, each key keeping the encodings of its first few values, so
 * a run that differs in one value (an id) still copies the others.
 */
export function writeAttributes(writer: ProtobufWriter, attributes: readonly (string | AttributeValue)[]): void {
  if (attributes.length === 0) return;
  const runs = keptRuns.get(attributes[0] as string);
  if (runs !== undefined) {
    for (let index = 0; index < runs.length; index++) {
      if (samePairs(runs[index]!.pairs, attributes)) {
        writer.raw(runs[index]!.bytes);
        return;
      }
    }
  }
  const start = writer.pos;
  let keepable = true;
  for (let index = 0; index < attributes.length; index += 2) {
    const value = attributes[index + 1] as AttributeValue;
    writeAttribute(writer, attributes[index] as string, value);
    // Arrays are compared by identity, so a run holding one is not kept.
    if (typeof value === 'object') keepable = false;
  }
  if (keepable) keepRun(runs, attributes, writer.buffer.subarray(start, writer.pos));
}

/** A run of attributes and its encoding. */
interface EncodedRun {
  readonly pairs: readonly (string | AttributeValue)[];
  readonly bytes: Uint8Array;
}

// Bounded both ways: a run whose values keep changing fills its first key's places and is written attribute by
// attribute after that; spans with ever new first keys fill the keys' places.
const RUNS_KEPT_PER_KEY = 16;
const FIRST_KEYS_KEPT = 64;
const keptRuns = new Map<string, EncodedRun[]>();

function keepRun(runs: EncodedRun[] | undefined, attributes: readonly (string | AttributeValue)[], bytes: Uint8Array): void {
  // The bytes are copied out of the batch's buffer, which is written over; the pairs are the ended span's own,
  // which nothing changes any more.
  const run = { pairs: attributes, bytes: Uint8Array.prototype.slice.call(bytes) };
  if (runs === undefined) {
    if (keptRuns.size < FIRST_KEYS_KEPT) keptRuns.set(attributes[0] as string, [run]);
  } else if (runs.length < RUNS_KEPT_PER_KEY) {
    runs.push(run);
  }
}

/** Whether two runs hold the same keys and values in the same order (arrays by identity). */
export function samePairs(kept: readonly (string | AttributeValue)[], attributes: readonly (string | AttributeValue)[]): boolean {
  // Spans started with one preset share its array (see LightTracer).
  if (kept === attributes) return true;
  if (kept.length !== attributes.length) return false;
  for (let index = 0; index < kept.length; index++) if (kept[index] !== attributes[index]) return false;
  return true;
}

/** An attribute's encoding (its field 9 key, length and `KeyValue`), kept for its value. */
interface EncodedAttribute {
  readonly value: AttributeValue;
  readonly bytes: Uint8Array;
}

// A key whose values keep changing (an id) fills its few places and is encoded each time after that.
const VALUES_KEPT_PER_KEY = 8;
const KEYS_KEPT = 256;
const encodedAttributes = new Map<string, EncodedAttribute[]>();

/** One attribute as field 9 of a span: copied when this key and value were written before, else encoded (and kept, if there is room). */
function writeAttribute(writer: ProtobufWriter, key: string, value: AttributeValue): void {
  const kept = encodedAttributes.get(key);
  if (kept !== undefined) {
    for (let index = 0; index < kept.length; index++) {
      if (kept[index]!.value === value) {
        writer.raw(kept[index]!.bytes);
        return;
      }
    }
  }
  const start = writer.pos;
  writer.tag(9, LENGTH_DELIMITED);
  writeKeyValue(writer, key, value);
  if (typeof value === 'object' || (kept?.length ?? 0) >= VALUES_KEPT_PER_KEY || (kept === undefined && encodedAttributes.size >= KEYS_KEPT)) return;
  const bytes = Uint8Array.prototype.slice.call(writer.buffer, start, writer.pos);
  if (kept === undefined) encodedAttributes.set(key, [{ value, bytes }]);
  else kept.push({ value, bytes });
}
