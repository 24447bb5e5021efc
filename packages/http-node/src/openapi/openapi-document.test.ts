import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { openapiDocument } from './openapi-document.js';

describe('openapiDocument', () => {
  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(openapiDocument('0.0.0') as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('would be caught if it broke the OpenAPI schema', async () => {
    const broken = openapiDocument('0.0.0') as unknown as { paths: Record<string, Record<string, { responses: unknown }>> };
    broken.paths['/plants']!.get!.responses = 'none';
    expect((await new Validator().validate(broken as never)).valid).toBe(false);
  });

  it('resolves every internal reference', () => {
    const document = openapiDocument('0.0.0');
    const text = JSON.stringify(document);
    for (const [, pointer] of text.matchAll(/"\$ref":"#\/([^"]+)"/g)) {
      const target = pointer!.split('/').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
      expect(target, pointer).toBeDefined();
    }
  });

  it('returns a fresh object each time', () => {
    const first = openapiDocument('1');
    (first.paths as Record<string, unknown>)['/x'] = {};
    expect(openapiDocument('1').paths['/x']).toBeUndefined();
  });
});
