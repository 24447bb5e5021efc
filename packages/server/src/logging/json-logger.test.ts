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
  it('writes one JSON line per entry with time, level, msg and the fields', () => {
    const out = capture();
    const logger = jsonLogger(out.sink, { now: fixedNow });
    logger.info('request', { method: 'GET', path: '/plants', status: 200, durationMs: 1.5 });
    logger.warn('slow');
    expect(out.lines()).toHaveLength(2);
    expect(out.entries()).toEqual([
      { time: '2024-01-02T03:04:05.678Z', level: 'info', msg: 'request', method: 'GET', path: '/plants', status: 200, durationMs: 1.5 },
      { time: '2024-01-02T03:04:05.678Z', level: 'warn', msg: 'slow' },
    ]);
  });

  it("adds the ids of the span active at the moment, leaving the caller's fields untouched", () => {
    const out = capture();
    let ids: { traceId: string; spanId: string } | undefined = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
    const logger = jsonLogger(out.sink, { now: fixedNow, traceIds: () => ids });
    const fields = { method: 'GET', status: 200 };
    logger.info('request', fields);
    logger.info('created', { id: 9007199254740993n });
    ids = undefined;
    logger.warn('outside a span');
    const envelope = { time: '2024-01-02T03:04:05.678Z', level: 'info' };
    const named = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
    expect(out.entries()).toEqual([
      { ...envelope, msg: 'request', method: 'GET', status: 200, ...named },
      { ...envelope, msg: 'created', id: '9007199254740993', ...named },
      { time: '2024-01-02T03:04:05.678Z', level: 'warn', msg: 'outside a span' },
    ]);
    expect(fields).toEqual({ method: 'GET', status: 200 });
  });

  it('escapes ids as any field, and writes them over fields of the same names, so every line stays one JSON object', () => {
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

  it('writes flat fields the same beside an object field (redaction and reserved names included)', () => {
    const key = fc.oneof(
      fc.constantFrom('token', 'apiKey', 'Authorization', 'secretName', 'msg', 'time', 'level', 'path', 'status', '0', '__proto__'),
      fc.string({ maxLength: 8 }),
    );
    const value = fc.oneof(fc.string(), fc.double(), fc.constantFrom(0, -0, NaN, Infinity, -Infinity, true, false, null, undefined));
    fc.assert(
      fc.property(
        fc.dictionary(
          key.filter((name) => name !== 'zz'),
          value,
          { maxKeys: 8 },
        ),
        (fields) => {
          const out = capture();
          const logger = jsonLogger(out.sink, { now: fixedNow });
          logger.info('m', fields);
          logger.info('m', { ...fields, zz: {} });
          const [plain, withObject] = out.lines().map((line) => JSON.parse(line) as Record<string, unknown>);
          expect(withObject).toEqual({ ...plain, zz: {} });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes the time of each entry, also when entries share a millisecond', () => {
    let current = 0;
    const out = capture();
    const logger = jsonLogger(out.sink, { now: () => current });
    for (const time of [0, 0, 1, 1, 0]) {
      current = time;
      logger.info('tick');
    }
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
