import type { LookupAddress, LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DESTINATION_NOT_ALLOWED, DestinationNotAllowedError, guardedLookup, type ResolveAll } from './guarded-lookup.js';

interface LookupResult {
  readonly error: NodeJS.ErrnoException | null;
  readonly address: string | LookupAddress[];
  readonly family?: number;
}

/** Calls a lookup function the way node:net does and collects its answer. */
function run(lookup: LookupFunction, hostname: string, all: boolean, family?: number): Promise<LookupResult> {
  return new Promise((resolve) =>
    lookup(hostname, { all, ...(family ? { family } : {}) }, (error, address, answerFamily) =>
      resolve({ error, address, ...(answerFamily !== undefined ? { family: answerFamily } : {}) }),
    ),
  );
}

/** A resolver with fixed answers that records what it was asked. */
function fixedResolver(answers: LookupAddress[]) {
  const calls: { hostname: string; options: LookupAllOptions }[] = [];
  const resolve: ResolveAll = (hostname, options, callback) => {
    calls.push({ hostname, options });
    setImmediate(() => callback(null, answers));
  };
  return { resolve, calls };
}

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

describe('guardedLookup', () => {
  it('passes on the first address when node:net asks for one', async () => {
    const { resolve, calls } = fixedResolver([v4('93.184.215.14'), v6('2606:2800:21f:cb07:6820:80da:af6b:8b2c')]);
    const result = await run(guardedLookup({ resolve }), 'example.com', false);
    expect(result).toEqual({ error: null, address: '93.184.215.14', family: 4 });
    expect(calls).toEqual([{ hostname: 'example.com', options: { all: true } }]);
  });

  it('passes on every address when node:net asks for all (happy eyeballs)', async () => {
    const answers = [v6('2606:2800:21f:cb07:6820:80da:af6b:8b2c'), v4('93.184.215.14')];
    const result = await run(guardedLookup({ resolve: fixedResolver(answers).resolve }), 'example.com', true);
    expect(result.error).toBeNull();
    expect(result.address).toEqual(answers);
  });

  it('hands the requested family to the resolver', async () => {
    const { resolve, calls } = fixedResolver([v6('2606:4700:4700::1111')]);
    await run(guardedLookup({ resolve }), 'one.one.one.one', false, 6);
    expect(calls[0]!.options).toEqual({ all: true, family: 6 });
  });

  it.each([
    [[v4('127.0.0.1')], '127.0.0.1'],
    [[v6('::1')], '::1'],
    [[v4('169.254.169.254')], '169.254.169.254'],
    [[v6('::ffff:10.0.0.1')], '::ffff:10.0.0.1'],
    [[v4('8.8.8.8'), v4('10.0.0.1')], '10.0.0.1'], // public first, private second
    [[v4('8.8.8.8'), v6('fd00::1')], 'fd00::1'],
    [[v6('fe80::1'), v4('8.8.8.8')], 'fe80::1'],
  ])('refuses the whole answer %j when any address is not public', async (answers, refused) => {
    for (const all of [false, true]) {
      const result = await run(guardedLookup({ resolve: fixedResolver(answers).resolve }), 'rebind.example', all);
      expect(result.error).toBeInstanceOf(DestinationNotAllowedError);
      expect(result.error).toMatchObject({
        code: DESTINATION_NOT_ALLOWED,
        message: 'destination not allowed',
        hostname: 'rebind.example',
        address: refused,
      });
    }
  });

  it('passes resolver errors through unchanged', async () => {
    const failure = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    const resolve: ResolveAll = (_, __, callback) => setImmediate(() => callback(failure, []));
    const result = await run(guardedLookup({ resolve }), 'nowhere.invalid', false);
    expect(result.error).toBe(failure);
  });

  it('treats an empty answer as not found rather than connecting nowhere', async () => {
    const result = await run(guardedLookup({ resolve: fixedResolver([]).resolve }), 'empty.example', false);
    expect(result.error).toMatchObject({ code: 'ENOTFOUND' });
  });

  it('refuses what the resolver says even for a name that looks harmless, and uses the given rule', async () => {
    const { resolve } = fixedResolver([v4('10.0.0.7')]);
    expect((await run(guardedLookup({ resolve }), 'public.example', false)).error?.code).toBe(DESTINATION_NOT_ALLOWED);
    const intranet = guardedLookup({ resolve, isAllowed: (address) => address.startsWith('10.') });
    expect(await run(intranet, 'public.example', false)).toEqual({ error: null, address: '10.0.0.7', family: 4 });
  });

  it('resolves real names with the system resolver by default', async () => {
    const result = await run(guardedLookup(), 'localhost', true);
    expect(result.error).toMatchObject({ code: DESTINATION_NOT_ALLOWED });
    const allowAll = await run(guardedLookup({ isAllowed: () => true }), 'localhost', true);
    expect(allowAll.error).toBeNull();
    expect((allowAll.address as LookupAddress[]).map(({ address }) => address)).toContain('127.0.0.1');
  });
});
