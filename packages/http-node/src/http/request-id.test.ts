import { describe, expect, it } from 'vitest';
import { requestId } from './request-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestId', () => {
  it('echoes 1 to 128 printable ASCII characters', () => {
    expect(requestId('a')).toBe('a');
    expect(requestId('req-42/x:y')).toBe('req-42/x:y');
    expect(requestId('~'.repeat(128))).toBe('~'.repeat(128));
  });

  it.each([undefined, '', 'x'.repeat(129), 'a b', 'tab\t', 'é', 'line\nbreak'])('generates a UUID instead of %j', (header) => {
    expect(requestId(header)).toMatch(UUID);
  });

  it('generates one for repeated headers and a fresh one each time', () => {
    expect(requestId(['a', 'b'])).toMatch(UUID);
    expect(requestId(undefined)).not.toBe(requestId(undefined));
  });
});
