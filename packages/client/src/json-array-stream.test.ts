import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonArrayElements } from './json-array-stream.js';

/** A byte stream of `bytes` cut at the given offsets (which may split a UTF-8 sequence). */
function streamOf(bytes: Uint8Array, cuts: number[] = []): ReadableStream<Uint8Array> {
  const offsets = [...new Set([0, ...cuts.map((cut) => cut % (bytes.length + 1)), bytes.length])].sort((a, b) => a - b);
  return new ReadableStream({
    start(controller) {
      for (let index = 1; index < offsets.length; index++) controller.enqueue(bytes.slice(offsets[index - 1], offsets[index]));
      controller.close();
    },
  });
}

async function elements(text: string, cuts?: number[]): Promise<string[]> {
  const found: string[] = [];
  for await (const element of jsonArrayElements(streamOf(new TextEncoder().encode(text), cuts))) found.push(element);
  return found;
}

// Names full of the characters the splitter must not be fooled by.
const tricky = fc.string({ unit: fc.constantFrom('"', '\\', '[', ']', '{', '}', ',', ' ', 'a', 'é', '🌿', '\n') });
const plant = fc.record(
  { id: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), name: tricky, tag: tricky, extra: fc.array(fc.integer()) },
  { requiredKeys: ['id', 'name'] },
);
const plantText = (value: { id: bigint }) => JSON.stringify({ ...value, id: 0 }).replace('"id":0', `"id":${value.id}`);

describe('jsonArrayElements', () => {
  it('yields exactly the elements of any array of objects, however the bytes are cut', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(plant, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 30 }), fc.boolean(), async (plants, cuts, spaced) => {
        const texts = plants.map(plantText);
        const separator = spaced ? ' ,\n ' : ',';
        const text = spaced ? ` [ ${texts.join(separator)} ] \n` : `[${texts.join(separator)}]`;
        expect(await elements(text, cuts)).toEqual(texts);
      }),
    );
  });

  it('rejects every proper prefix of a list (a list cut short is never taken for a shorter one)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(plant, { minLength: 1, maxLength: 5 }), fc.nat(), async (plants, cut) => {
        const text = `[${plants.map(plantText).join(',')}]`;
        const prefix = text.slice(0, cut % text.length);
        await expect(elements(prefix)).rejects.toThrow(SyntaxError);
      }),
    );
  });

  it.each([
    ['[]', []],
    [' [ \n ] ', []],
    ['[1,"a,]",[2,[3]],{"b":{}}]', ['1', '"a,]"', '[2,[3]]', '{"b":{}}']],
    ['[1,]', ['1', '']],
    ['[,1]', ['', '1']],
  ])('splits %s', async (text, expected) => {
    expect(await elements(text)).toEqual(expected);
  });

  it.each(['', '{}', '42', 'x[1]', '[1] x', '[1}', '[1', '["a]'])('rejects %j', async (text) => {
    await expect(elements(text)).rejects.toThrow(SyntaxError);
  });

  it('cancels the stream when the consumer stops early', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('[1,2,'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const element of jsonArrayElements(stream)) {
      expect(element).toBe('1');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
