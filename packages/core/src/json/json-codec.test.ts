import fc from 'fast-check';
import { parse as losslessParse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { int64FromDecimal } from '../domain/int64.js';
import { isInexactNumber, parseJson, stringifyJson } from './json-codec.js';
import { JsonDuplicateKeyError } from './json-duplicate-key-error.js';

describe('parseJson', () => {
  it('parses small integers as numbers', () => {
    expect(parseJson('{"id":42,"name":"x","n":[-1,0,123456789012345]}')).toEqual({
      id: 42,
      name: 'x',
      n: [-1, 0, 123456789012345],
    });
  });

  it('keeps integers beyond 2^53 exact as bigint', () => {
    expect(parseJson('{"id":9223372036854775807}')).toEqual({ id: 9223372036854775807n });
    expect(parseJson('[-9223372036854775808, 9007199254740993]')).toEqual([-9223372036854775808n, 9007199254740993n]);
  });

  it('turns integer spellings into their exact value', () => {
    expect(parseJson('[20.0, 2e1, -0, 1.5e3]')).toEqual([20, 20, 0, 1500]);
  });

  it('keeps fractions and out-of-range numbers as inexact literals', () => {
    const [fraction, huge, nearlyOne] = parseJson('[1.5, 1e400, 1.0000000000000001]') as unknown[];
    for (const value of [fraction, huge, nearlyOne]) expect(isInexactNumber(value)).toBe(true);
    expect(String(nearlyOne)).toBe('1.0000000000000001');
  });

  it('leaves strings that look like numbers alone', () => {
    expect(parseJson('{"name":"1.5e3 and 12345678901234567"}')).toEqual({ name: '1.5e3 and 12345678901234567' });
  });

  it('rejects malformed JSON with a SyntaxError on both paths', () => {
    expect(() => parseJson('{"id":1,')).toThrow(SyntaxError);
    expect(() => parseJson('{"id":1.5,')).toThrow(SyntaxError);
  });
});

describe('parseJson: duplicate keys', () => {
  const duplicateKey = (text: string) => {
    try {
      parseJson(text);
    } catch (error) {
      return error instanceof JsonDuplicateKeyError ? error : undefined;
    }
    return undefined;
  };

  it('refuses a key named twice whatever else the text holds (digits in strings, fractions, big ids)', () => {
    for (const text of [
      '{"id":7010,"id":7011,"name":"dup"}',
      '{"id":7012,"id":7013,"name":"v2.0"}',
      '{"id":7.0,"id":7.0}',
      '{"id":9223372036854775807,"name":"a","id":1}',
      '{"url":"https://hooks.example/v7.0","events":["plant.created"],"url":"https://other.example"}',
    ]) {
      const error = duplicateKey(text);
      expect(error, text).toBeInstanceOf(SyntaxError);
      expect(error?.message).toBe(error?.key === 'url' ? 'duplicate key "url"' : 'duplicate key "id"');
    }
  });

  it('finds duplicates at any depth, spelled with escapes or not, and in objects of any size', () => {
    expect(duplicateKey('[1,{"a":[{"b":{"c":1,"d":2,"c":3}}]}]')?.key).toBe('c');
    expect(duplicateKey('{"id":1,"\\u0069d":2}')?.key).toBe('id');
    expect(duplicateKey('{"a\\"b":1,"a\\u0022b":2}')?.key).toBe('a"b');
    expect(duplicateKey('{"__proto__":1,"__proto__":2}')?.key).toBe('__proto__');
    const wide = Array.from({ length: 5000 }, (_, i) => `"k${i}":${i}`);
    expect(duplicateKey(`{${wide.join(',')}}`)).toBeUndefined();
    expect(duplicateKey(`{${wide.join(',')},"k4321":0}`)?.key).toBe('k4321');
    expect(duplicateKey(`{"k1":0,${wide.join(',')}}`)?.key).toBe('k1');
  });

  it('finds duplicates among the keys of many open objects', () => {
    const nested = (depth: number, innermost: string): string => (depth === 0 ? innermost : `{"a":1,"b":2,"c":3,"d":4,"n":${nested(depth - 1, innermost)}}`);
    expect(duplicateKey(nested(20, '{"x":1,"x":2}'))?.key).toBe('x');
    expect(duplicateKey(nested(20, '{"x":1,"y":[1.5]}'))).toBeUndefined();
    expect(duplicateKey(`[${nested(20, '{"x":1}')},{"a":1,"a":2}]`)?.key).toBe('a');
  });

  it('quotes a long duplicated key shortened, escaped as JSON', () => {
    const key = `"${'x'.repeat(100)}`;
    const error = duplicateKey(`{${JSON.stringify(key)}:1,${JSON.stringify(key)}:2}`);
    expect(error?.key).toBe(key);
    expect(error?.message).toBe(`duplicate key ${JSON.stringify(`${key.slice(0, 64)}…`)}`);
  });

  it('accepts the same key in different objects, and key-like text inside strings', () => {
    expect(parseJson('[{"id":1},{"id":2,"o":{"id":3}}]')).toEqual([{ id: 1 }, { id: 2, o: { id: 3 } }]);
    expect(parseJson('{"a":"\\"a\\":1,\\"a\\":2","b":"{\\"b\\":1}"}')).toEqual({ a: '"a":1,"a":2', b: '{"b":1}' });
    expect(parseJson('{"a":{"b":1},"b":{"a":1}}')).toEqual({ a: { b: 1 }, b: { a: 1 } });
  });

  it('reports malformed text as malformed, not as a duplicate', () => {
    for (const text of ['{"a":1,"a":2', '{"a":1,"a":2,}', '{"a":1,"a":"\\x"}', '{"a\\x":1,"a\\x":2}']) {
      expect(() => parseJson(text)).toThrow(SyntaxError);
      expect(duplicateKey(text), text).toBeUndefined();
    }
  });
});

// Random JSON text, built as text so number literals keep their spelling.
const numberLiteral = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom(
    '7.0',
    '2e1',
    '-0',
    '0',
    '1.5',
    '1e400',
    '-1E-7',
    '1.0000000000000001',
    '9007199254740993',
    '-9223372036854775808',
    '123456789012345',
    '1234567890123456',
  ),
);
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('v2.0', '7.0', 'https://hooks.example/v7.0/x', '12345678901234567', '{"id":1,"id":2}', 'a"b\\c', '1e400'),
);
const key = fc.oneof(fc.constantFrom('id', 'name', 'tag', 'a', '__proto__', '7.0', 'x"y'), fc.string({ maxLength: 4 }));
/** A key as JSON text, its first character sometimes written as a \u escape. */
const keyText = (name: string, escape: boolean) =>
  escape && name.length > 0 ? `"\\u${name.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(name.slice(1)).slice(1)}` : JSON.stringify(name);
const space = fc.constantFrom('', '', ' ', '\n\t ');
const leaf = fc.oneof(
  numberLiteral,
  text.map((value) => JSON.stringify(value)),
  fc.constantFrom('true', 'false', 'null'),
);
const { value } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.tuple(fc.array(tie('value'), { maxLength: 4 }), space).map(([items, ws]) => `[${ws}${items.join(`${ws},`)}]`),
  object: fc
    .tuple(fc.uniqueArray(fc.tuple(key, tie('value'), fc.boolean()), { selector: ([name]) => name, maxLength: 5 }), space)
    .map(([entries, ws]) => `{${entries.map(([name, item, escape]) => `${ws}${keyText(name, escape)}${ws}:${item}`).join(',')}${ws}}`),
}));

/** An object naming one key twice (the second spelling maybe escaped), at a random depth among random siblings. */
const withDuplicate = fc
  .tuple(
    fc.uniqueArray(fc.tuple(key, value), { selector: ([name]) => name, minLength: 1, maxLength: 5 }),
    fc.nat(),
    fc.nat(),
    value,
    fc.boolean(),
    fc.array(fc.tuple(fc.boolean(), key, value, fc.boolean()), { maxLength: 6 }),
  )
  .map(([entries, pick, at, again, escape, layers]) => {
    const name = entries[pick % entries.length]![0];
    const members = entries.map(([member, item]) => `${JSON.stringify(member)}:${item}`);
    members.splice(at % (members.length + 1), 0, `${keyText(name, escape)}:${again}`);
    let nested = `{${members.join(',')}}`;
    for (const [inArray, outer, sibling, before] of layers) {
      if (inArray) nested = before ? `[${sibling},${nested}]` : `[${nested},${sibling}]`;
      else nested = `{${JSON.stringify(outer)}:${nested},${JSON.stringify(`${outer}-sibling`)}:${sibling}}`;
    }
    return nested;
  });

/** Flat objects (the commonest body), near-misses included: bad numbers, bad whitespace, control characters. */
const flatLeaf = fc.oneof(
  leaf,
  fc.constantFrom('01', '-', '1.', '.5', '+1', '-01', '-0', 'truex', 'nul', '"\u0001"', '"a\\"', '"\\u0041"', '1e', '0x1', '"\t"', '{}', '[]'),
);
const flatSpace = fc.constantFrom('', ' ', '\t', '\n', '\r', '\f', '\v', '\u00a0');
const flat = fc
  .tuple(
    fc.uniqueArray(
      fc.tuple(
        key,
        fc.oneof(
          flatLeaf,
          fc.array(flatLeaf, { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
        ),
        flatSpace,
      ),
      {
        selector: ([name]) => name,
        maxLength: 5,
      },
    ),
    flatSpace,
  )
  .map(([entries, ws]) => `${ws}{${entries.map(([name, item, w]) => `${w}${JSON.stringify(name)}${w}:${w}${item}${w}`).join(',')}}${ws}`);

/** The reference: lossless-json reading every number by its spelling. */
function exactParse(text: string): unknown {
  return losslessParse(text, null, (literal) => {
    const integer = int64FromDecimal(literal);
    if (integer === undefined) return losslessParse(literal);
    return integer >= BigInt(Number.MIN_SAFE_INTEGER) && integer <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(integer) : integer;
  });
}

describe('parseJson: properties', () => {
  it('refuses every text with a duplicated key, at any depth, with JsonDuplicateKeyError', () => {
    fc.assert(
      fc.property(withDuplicate, (json) => {
        expect(() => JSON.parse(json)).not.toThrow(); // valid JSON, but for the duplicate
        expect(() => parseJson(json)).toThrow(JsonDuplicateKeyError);
      }),
      { numRuns: 2000 },
    );
  });

  it('parses every text without duplicates as the exact parser does (ids exact as bigint)', () => {
    fc.assert(
      fc.property(value, (json) => {
        expect(parseJson(json)).toEqual(exactParse(json));
      }),
      { numRuns: 2000 },
    );
  });

  it('never crashes on garbage: a value or a SyntaxError', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          value.chain((json) =>
            fc
              .tuple(fc.constant(json), fc.nat(), fc.string({ maxLength: 3 }))
              .map(([t, at, junk]) => t.slice(0, at % (t.length + 1)) + junk + t.slice(at % (t.length + 1))),
          ),
        ),
        (json) => {
          let parsed: unknown;
          try {
            parsed = parseJson(json);
          } catch (error) {
            expect(error).toBeInstanceOf(SyntaxError);
            return;
          }
          expect(() => JSON.parse(json)).not.toThrow();
          expect(parsed).toEqual(exactParse(json));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('parseJson: flat objects', () => {
  it('reads flat objects exactly as the exact parser does, and refuses what JSON.parse refuses', () => {
    fc.assert(
      fc.property(flat, (json) => {
        let valid = true;
        try {
          JSON.parse(json);
        } catch {
          valid = false;
        }
        if (valid) expect(parseJson(json)).toEqual(exactParse(json));
        else expect(() => parseJson(json)).toThrow(SyntaxError);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps __proto__ and other prototype names as own keys, as JSON.parse does', () => {
    const parsed = parseJson('{"__proto__":{"admin":true},"toString":"x","id":1}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__', 'toString', 'id']);
    expect((parsed as { admin?: unknown }).admin).toBeUndefined();
  });
});

describe('stringifyJson', () => {
  it('writes bigint as exact digits', () => {
    expect(stringifyJson({ id: -9223372036854775808n, list: [1n, 'a'] })).toBe('{"id":-9223372036854775808,"list":[1,"a"]}');
  });
});
