import { ROOT_CONTEXT } from '@opentelemetry/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLogger } from './json-logger.js';

function capture() {
  const chunks: string[] = [];
  return {
    sink: { write: (chunk: string) => chunks.push(chunk) },
    lines: () => chunks.join('').split('\n').filter(Boolean),
    entries: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const fixedNow = () => Date.UTC(2024, 0, 2, 3, 4, 5, 678);

describe('jsonLogger', () => {
  it('writes one JSON line per entry with time, level, msg first and the fields after', () => {
    const out = capture();
    const logger = jsonLogger(out.sink, { now: fixedNow });
    logger.info('request', { method: 'GET', path: '/plants', status: 200, durationMs: 1.5 });
    logger.warn('slow');
    expect(out.lines()).toEqual([
      '{"time":"2024-01-02T03:04:05.678Z","level":"info","msg":"request","method":"GET","path":"/plants","status":200,"durationMs":1.5}',
      '{"time":"2024-01-02T03:04:05.678Z","level":"warn","msg":"slow"}',
    ]);
  });

  it('adds the ids of the span active at the moment after the entry\'s own fields, leaving the caller\'s fields untouched', () => {
    const out = capture();
    let ids: { traceId: string; spanId: string } | undefined = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
    const logger = jsonLogger(out.sink, { now: fixedNow, traceIds: () => ids });
    const fields = { method: 'GET', status: 200 };
    logger.info('request', fields);
    // A field that is not plain (a bigint) takes the replacer's path, which must keep the ids too.
    logger.info('created', { id: 9007199254740993n });
    ids = undefined;
    logger.warn('outside a span');
    const envelope = '"time":"2024-01-02T03:04:05.678Z","level":"info"';
    const named = '"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331"';
    expect(out.lines()).toEqual([
      `{${envelope},"msg":"request","method":"GET","status":200,${named}}`,
      `{${envelope},"msg":"created","id":"9007199254740993",${named}}`,
      '{"time":"2024-01-02T03:04:05.678Z","level":"warn","msg":"outside a span"}',
    ]);
    expect(fields).toEqual({ method: 'GET', status: 200 });
  });

  it('serializes ids that are not hex, and ids over fields of the same names, as fields, so every line stays one JSON object', () => {
    const out = capture();
    const logger = jsonLogger(out.sink, { now: fixedNow, traceIds: () => ({ traceId: 'a"b\\c', spanId: 's\n1' }) });
    logger.info('odd ids');
    const hexLogger = jsonLogger(out.sink, { now: fixedNow, traceIds: () => ({ traceId: 'abc', spanId: 'def' }) });
    hexLogger.info('own traceId field', { traceId: 'mine', other: 1 });
    expect(out.entries()).toEqual([
      { time: '2024-01-02T03:04:05.678Z', level: 'info', msg: 'odd ids', traceId: 'a"b\\c', spanId: 's\n1' },
      { time: '2024-01-02T03:04:05.678Z', level: 'info', msg: 'own traceId field', traceId: 'abc', other: 1, spanId: 'def' },
    ]);
  });

  it('writes ids vouched for as hex after the serialized entry, the same line the serializer writes, and serializes them when a field has their name', () => {
    const ids = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
    const vouched = capture();
    const serialized = capture();
    const hexLogger = jsonLogger(vouched.sink, { now: fixedNow, traceIds: () => ({ ...ids, hex: true }) });
    const plainLogger = jsonLogger(serialized.sink, { now: fixedNow, traceIds: () => ids });
    for (const logger of [hexLogger, plainLogger]) {
      logger.info('request', { method: 'GET', path: '/plants?x="y"', status: 200, durationMs: 1.5 });
      logger.info('created', { id: 9007199254740993n });
      logger.warn('own traceId field', { traceId: 'mine', other: 1 });
      logger.error('no fields');
    }
    expect(vouched.lines()).toEqual(serialized.lines());
    expect(vouched.entries()[2]).toEqual({ time: '2024-01-02T03:04:05.678Z', level: 'warn', msg: 'own traceId field', traceId: ids.traceId, other: 1, spanId: ids.spanId });
    expect(vouched.lines()[0]).toBe(
      '{"time":"2024-01-02T03:04:05.678Z","level":"info","msg":"request","method":"GET","path":"/plants?x=\\"y\\"","status":200,"durationMs":1.5,' +
        '"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331"}',
    );
  });

  it('gives, with traceIdsIn, a logger per trace context whose entries carry its span\u2019s ids, at the same level threshold', () => {
    const out = capture();
    const contexts: unknown[] = [];
    const logger = jsonLogger(out.sink, {
      now: fixedNow,
      level: 'info',
      traceIds: () => ({ traceId: 'ffffffffffffffffffffffffffffffff', spanId: 'ffffffffffffffff' }),
      traceIdsIn: (traceContext) => (contexts.push(traceContext), { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' }),
    });
    const request = ROOT_CONTEXT.setValue(Symbol('request'), 1);
    const inTrace = logger.inTrace!(request);
    inTrace.debug('below the level');
    inTrace.info('request', { status: 200 });
    inTrace.warn('slow');
    inTrace.error('failed');
    // The ids are found once for the context, not per entry.
    expect(contexts).toEqual([request]);
    const named = '"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331"';
    expect(out.lines()).toEqual([
      `{"time":"2024-01-02T03:04:05.678Z","level":"info","msg":"request","status":200,${named}}`,
      `{"time":"2024-01-02T03:04:05.678Z","level":"warn","msg":"slow",${named}}`,
      `{"time":"2024-01-02T03:04:05.678Z","level":"error","msg":"failed",${named}}`,
    ]);
    // Outside any span the context names, its entries carry no ids; without traceIdsIn there is no inTrace.
    jsonLogger(out.sink, { now: fixedNow, traceIdsIn: () => undefined }).inTrace!(ROOT_CONTEXT).info('no span');
    expect(out.lines().at(-1)).toBe('{"time":"2024-01-02T03:04:05.678Z","level":"info","msg":"no span"}');
    expect(jsonLogger(out.sink).inTrace).toBeUndefined();
  });

  it('drops entries below the level', () => {
    const out = capture();
    const logger = jsonLogger(out.sink, { level: 'warn' });
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(out.entries().map((entry) => entry['level'])).toEqual(['warn', 'error']);

    const all = capture();
    const verbose = jsonLogger(all.sink, { level: 'debug' });
    verbose.debug('d');
    verbose.info('i');
    expect(all.entries().map((entry) => entry['msg'])).toEqual(['d', 'i']);
  });

  it('defaults to info', () => {
    const out = capture();
    const logger = jsonLogger(out.sink);
    logger.debug('hidden');
    logger.info('shown');
    expect(out.entries().map((entry) => entry['msg'])).toEqual(['shown']);
  });

  it('writes bigints exactly, as decimal strings', () => {
    const out = capture();
    jsonLogger(out.sink).info('created', { id: 9223372036854775807n, nested: { min: -9223372036854775808n } });
    const line = out.lines()[0]!;
    expect(line).toContain('"id":"9223372036854775807"');
    expect(line).toContain('"min":"-9223372036854775808"');
  });

  it('redacts fields named like credentials, at any depth', () => {
    const out = capture();
    jsonLogger(out.sink).info('oops', {
      token: 'tok-123',
      headers: { Authorization: 'Bearer tok-123', 'x-request-id': 'r1' },
      webhook: { url: 'http://127.0.0.1/hook', secret: 'whsec_abc' },
      apiKey: 'k',
      password: 'p',
    });
    const line = out.lines()[0]!;
    expect(line).not.toContain('tok-123');
    expect(line).not.toContain('whsec_abc');
    const entry = out.entries()[0]!;
    expect(entry['token']).toBe('[redacted]');
    expect(entry['headers']).toEqual({ Authorization: '[redacted]', 'x-request-id': 'r1' });
    expect(entry['webhook']).toEqual({ url: 'http://127.0.0.1/hook', secret: '[redacted]' });
    expect(entry['apiKey']).toBe('[redacted]');
    expect(entry['password']).toBe('[redacted]');
  });

  it('serializes errors with name, message and stack, and survives cycles', () => {
    const out = capture();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic['self'] = cyclic;
    jsonLogger(out.sink).error('failed', { error: new TypeError('bad thing'), cyclic });
    const entry = out.entries()[0]!;
    expect(entry['error']).toMatchObject({ name: 'TypeError', message: 'bad thing' });
    expect(String((entry['error'] as { stack: string }).stack)).toContain('TypeError: bad thing');
    expect(entry['cyclic']).toEqual({ name: 'loop', self: '[Circular]' });
  });

  it('keeps the envelope when a field uses a reserved name', () => {
    const out = capture();
    jsonLogger(out.sink, { now: fixedNow }).info('real', { msg: 'fake', level: 'error' });
    expect(out.entries()[0]).toEqual({
      time: '2024-01-02T03:04:05.678Z',
      level: 'info',
      msg: 'real',
      'field.msg': 'fake',
      'field.level': 'error',
    });
  });

  it('writes flat entries exactly as the full serializer does (redaction and reserved names included)', () => {
    const key = fc.oneof(
      fc.constantFrom('token', 'apiKey', 'Authorization', 'secretName', 'msg', 'time', 'level', 'path', 'status', '0', '__proto__'),
      fc.string({ maxLength: 8 }),
    );
    const value = fc.oneof(
      fc.string(),
      fc.double(),
      fc.constantFrom(0, -0, NaN, Infinity, -Infinity, true, false, null, undefined),
    );
    fc.assert(
      fc.property(fc.dictionary(key.filter((name) => name !== 'zz'), value, { maxKeys: 8 }), (fields) => {
        const out = capture();
        const logger = jsonLogger(out.sink, { now: fixedNow });
        logger.info('m', fields);
        // An object field takes the entry off the fast path; it is written last.
        logger.info('m', { ...fields, zz: {} });
        const [fast, full] = out.lines();
        expect(full).toBe(`${fast!.slice(0, -1)},"zz":{}}`);
      }),
      { numRuns: 300 },
    );
  });

  it('writes the time of each entry, also when entries share a millisecond', () => {
    const times = [0, 0, 1, 1, 0];
    const out = capture();
    const logger = jsonLogger(out.sink, { now: () => times.shift()! });
    for (let index = 0; index < 5; index++) logger.info('tick');
    expect(out.entries().map((entry) => entry['time'])).toEqual([
      '1970-01-01T00:00:00.000Z',
      '1970-01-01T00:00:00.000Z',
      '1970-01-01T00:00:00.001Z',
      '1970-01-01T00:00:00.001Z',
      '1970-01-01T00:00:00.000Z',
    ]);
  });

  it('never throws on fields that cannot be serialized', () => {
    const out = capture();
    const hostile = {
      get boom(): never {
        throw new Error('getter');
      },
    };
    expect(() => jsonLogger(out.sink).info('still here', { hostile })).not.toThrow();
    expect(out.entries()[0]).toMatchObject({ level: 'info', msg: 'still here', logError: 'fields could not be serialized' });
  });
});
