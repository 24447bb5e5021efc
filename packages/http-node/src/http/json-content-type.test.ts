import { describe, expect, it } from 'vitest';
import { isJsonContentType } from './json-content-type.js';

describe('isJsonContentType', () => {
  it.each(['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', ' application/json ;x=y'])(
    'accepts %j',
    (header) => {
      expect(isJsonContentType(header)).toBe(true);
    },
  );

  it.each([undefined, '', 'text/plain', 'application/jsonx', 'application/merge-patch+json', 'application/*', 'json', 'application/json5', 'text/json'])(
    'refuses %j',
    (header) => {
      expect(isJsonContentType(header)).toBe(false);
    },
  );
});
