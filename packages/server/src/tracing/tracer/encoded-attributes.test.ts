import type { AttributeValue } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { writeKeyValue } from '../otlp-trace-protobuf.js';
import { LENGTH_DELIMITED, ProtobufWriter } from '../protobuf-writer.js';
import { writeAttributes } from './encoded-attributes.js';

/** What writeAttributes must write: each attribute encoded afresh, as field 9. */
function encodedAfresh(attributes: readonly (string | AttributeValue)[]): Buffer {
  const writer = new ProtobufWriter(Buffer.alloc(16));
  for (let index = 0; index < attributes.length; index += 2) {
    writer.tag(9, LENGTH_DELIMITED);
    writeKeyValue(writer, attributes[index] as string, attributes[index + 1] as AttributeValue);
  }
  return writer.buffer.subarray(0, writer.pos);
}

/** What writeAttributes writes, after a few bytes already in the buffer (as in a span). */
function written(attributes: readonly (string | AttributeValue)[]): Buffer {
  const writer = new ProtobufWriter(Buffer.alloc(4));
  writer.raw(Uint8Array.of(1, 2, 3));
  writeAttributes(writer, attributes);
  return writer.buffer.subarray(3, writer.pos);
}

describe('writeAttributes', () => {
  it('writes a run seen before (copied) as it writes a new one (encoded)', () => {
    const storage = ['db.operation.name', 'listJson', 'db.collection.name', 'plants', 'db.system.name', 'sqlite'];
    expect(written(storage)).toEqual(encodedAfresh(storage));
    expect(written([...storage])).toEqual(encodedAfresh(storage));
  });

  it('tells runs apart by every key and value, in order', () => {
    const runs: (string | AttributeValue)[][] = [
      ['http.request.method', 'GET', 'http.route', '/plants', 'http.response.status_code', 200],
      ['http.request.method', 'GET', 'http.route', '/plants', 'http.response.status_code', 404],
      ['http.request.method', 'GET', 'http.route', '/plants/{id}', 'http.response.status_code', 200],
      ['http.request.method', 'GET', 'http.route', '/plants'],
      ['http.request.method', 'GET', 'http.response.status_code', 200, 'http.route', '/plants'],
      ['http.request.method', 'POST', 'http.route', '/plants', 'http.response.status_code', 201, 'error.type', '500'],
    ];
    for (let round = 0; round < 3; round++) for (const run of runs) expect(written(run)).toEqual(encodedAfresh(run));
  });

  it('writes runs with values that keep changing right, past the runs kept for their first key', () => {
    for (let id = 0; id < 100; id++) {
      const run = ['http.request.method', 'GET', 'plant.count', id, 'flag', id % 2 === 0];
      expect(written(run)).toEqual(encodedAfresh(run));
      expect(written(run)).toEqual(encodedAfresh(run));
    }
  });

  it('never copies a run holding an array, whose elements may have changed', () => {
    const tags = ['a', 'b'];
    const run = ['plant.tags', tags, 'http.request.method', 'GET'];
    expect(written(run)).toEqual(encodedAfresh(run));
    tags.push('c');
    expect(written(run)).toEqual(encodedAfresh(run));
  });

  it('writes nothing for no attributes', () => {
    expect(written([])).toEqual(Buffer.alloc(0));
  });
});
