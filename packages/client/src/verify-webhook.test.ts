import { generateKeyPairSync, sign as signWith } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from './verify-webhook.js';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const nowSeconds = NOW / 1000;

beforeEach(() => {
  // Both implementations read the clock through Date; freeze it.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});
afterEach(() => {
  vi.useRealTimers();
});

const secretOf = (bytes: Uint8Array) => `whsec_${btoa(String.fromCharCode(...bytes))}`;
const sign = (secret: string, id: string, timestamp: number, body: string) => new Webhook(secret).sign(id, new Date(timestamp * 1000), body);

const arbitrarySecret = fc.uint8Array({ minLength: 24, maxLength: 64 }).map(secretOf);
const arbitraryPlantBody = fc
  .record({
    id: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    name: fc.string({ minLength: 1, maxLength: 20 }),
    tag: fc.option(fc.string({ minLength: 1, maxLength: 10 }), { nil: undefined }),
  })
  .map(({ id, name, tag }) => ({ id, name, tag, text: JSON.stringify({ id: 0, name, tag }).replace('"id":0', `"id":${id}`) }));
const arbitraryOffset = fc.oneof(fc.constantFrom(-301, -300, 0, 300, 301), fc.integer({ min: -1000, max: 1000 }));
const tampering = fc.constantFrom('none', 'body', 'id', 'timestamp', 'signature', 'secret');

type Outcome = { ok: true; name: unknown } | { ok: false };

function theirs(body: string, headers: Record<string, string>, secret: string): Outcome {
  try {
    return { ok: true, name: (new Webhook(secret).verify(body, headers) as { name: unknown }).name };
  } catch {
    return { ok: false };
  }
}

async function ours(body: string, headers: Record<string, string> | Headers, secret: string): Promise<Outcome> {
  try {
    return { ok: true, name: ((await verifyWebhook(body, headers, secret)) as { name: unknown }).name };
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return { ok: false };
  }
}

/** Flips one character of a base64 signature to another base64 character. */
const flip = (signature: string) => signature.slice(0, 3) + (signature[3] === 'A' ? 'B' : 'A') + signature.slice(4);

describe('verifyWebhook agrees with the standardwebhooks package', () => {
  it('on valid, tampered, expired, future and multi-signature messages', async () => {
    await fc.assert(
      fc.asyncProperty(
        arbitrarySecret,
        fc.array(arbitrarySecret, { maxLength: 3 }),
        arbitraryPlantBody,
        arbitraryOffset,
        tampering,
        fc.nat(),
        fc.boolean(),
        async (secret, otherSecrets, body, offset, tamper, position, asHeaders) => {
          const id = `msg_${position.toString(16)}`;
          const timestamp = nowSeconds + offset;
          const own = sign(secret, id, timestamp, body.text);
          // The right signature among others (rotation: old secrets, unknown versions), at any place.
          const others = otherSecrets.map((other) => sign(other, id, timestamp, body.text));
          const all = [...others, 'v2,' + own.slice(3)];
          all.splice(position % (all.length + 1), 0, tamper === 'signature' ? flip(own) : own);
          const headers: Record<string, string> = {
            'webhook-id': tamper === 'id' ? `${id}x` : id,
            'Webhook-Timestamp': String(tamper === 'timestamp' ? timestamp + 1 : timestamp),
            'WEBHOOK-SIGNATURE': all.join(' '),
          };
          const sent = tamper === 'body' ? body.text.replace('"name":', '"name": ') : body.text;
          const key = tamper === 'secret' ? secretOf(new Uint8Array(32)) : secret;

          const expected = theirs(sent, headers, key);
          expect(await ours(sent, asHeaders ? new Headers(headers) : headers, key)).toEqual(expected);
          // And the cases are what they look like: only untampered, fresh messages pass.
          expect(expected.ok).toBe(tamper === 'none' && Math.abs(offset) <= 300);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('returns the payload with the exact int64 id, from a string or the raw bytes', async () => {
    const secret = secretOf(new Uint8Array(32).fill(7));
    const body = '{"id":-9223372036854775808,"name":"Fern 🌿","tag":"green"}';
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(nowSeconds), 'webhook-signature': sign(secret, 'msg_1', nowSeconds, body) };
    const expected = { id: -9223372036854775808n, name: 'Fern 🌿', tag: 'green' };
    expect(await verifyWebhook(body, headers, secret)).toEqual(expected);
    expect(await verifyWebhook(new TextEncoder().encode(body), headers, secret)).toEqual(expected);
    const deleted = '{"id":9223372036854775807}';
    const deletedHeaders = { ...headers, 'webhook-signature': sign(secret, 'msg_1', nowSeconds, deleted) };
    expect(await verifyWebhook(deleted, deletedHeaders, secret)).toEqual({ id: 9223372036854775807n });
  });

  it('honours the tolerance and clock options', async () => {
    const secret = secretOf(new Uint8Array(32).fill(1));
    const body = '{"id":1,"name":"a"}';
    const at = nowSeconds - 3600;
    const headers = { 'webhook-id': 'msg_2', 'webhook-timestamp': String(at), 'webhook-signature': sign(secret, 'msg_2', at, body) };
    await expect(verifyWebhook(body, headers, secret)).rejects.toThrow(/too old/);
    await expect(verifyWebhook(body, headers, secret, { toleranceSeconds: 3600 })).resolves.toEqual({ id: 1n, name: 'a' });
    await expect(verifyWebhook(body, headers, secret, { now: new Date(at * 1000) })).resolves.toEqual({ id: 1n, name: 'a' });
    await expect(verifyWebhook(body, headers, secret, { now: new Date((at - 301) * 1000) })).rejects.toThrow(/too new/);
  });

  it('names what is wrong', async () => {
    const secret = secretOf(new Uint8Array(32).fill(2));
    const headers = { 'webhook-id': 'msg_3', 'webhook-timestamp': String(nowSeconds), 'webhook-signature': sign(secret, 'msg_3', nowSeconds, 'x') };
    await expect(verifyWebhook('x', { ...headers, 'webhook-id': undefined }, secret)).rejects.toThrow(/missing/);
    await expect(verifyWebhook('x', { ...headers, 'webhook-timestamp': '12abc' }, secret)).rejects.toThrow(/invalid webhook-timestamp/);
    await expect(verifyWebhook('x', headers, secret)).rejects.toThrow(/not valid JSON/);
    const signed = (body: string) => ({ ...headers, 'webhook-signature': sign(secret, 'msg_3', nowSeconds, body) });
    await expect(verifyWebhook('{"name":1}', signed('{"name":1}'), secret)).rejects.toThrow(/not a Plant Store event payload/);
    await expect(verifyWebhook('x', headers, 'whsec_')).rejects.toThrow(TypeError);
    await expect(verifyWebhook('x', headers, 'whsec_!!!')).rejects.toThrow(TypeError);
  });

  describe('Ed25519 (v1a)', () => {
    const keyPair = () => {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      return { privateKey, publicKey: `whpk_${Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64')}` };
    };
    const signV1a = (privateKey: ReturnType<typeof keyPair>['privateKey'], id: string, body: string) =>
      `v1a,${signWith(null, Buffer.from(`${id}.${nowSeconds}.${body}`), privateKey).toString('base64')}`;
    const body = '{"id":42,"name":"Fern"}';

    it('verifies with the whpk_ public key, also when the current and the previous key both sign', async () => {
      const current = keyPair();
      const previous = keyPair();
      const headers = {
        'webhook-id': 'msg_a',
        'webhook-timestamp': String(nowSeconds),
        'webhook-signature': `${signV1a(current.privateKey, 'msg_a', body)} ${signV1a(previous.privateKey, 'msg_a', body)}`,
      };
      expect(await verifyWebhook(body, headers, current.publicKey)).toEqual({ id: 42n, name: 'Fern' });
      expect(await verifyWebhook(body, headers, previous.publicKey)).toEqual({ id: 42n, name: 'Fern' });
    });

    it('rejects another key, a changed body, a v1 signature and a malformed key', async () => {
      const { privateKey, publicKey } = keyPair();
      const headers = { 'webhook-id': 'msg_b', 'webhook-timestamp': String(nowSeconds), 'webhook-signature': signV1a(privateKey, 'msg_b', body) };
      await expect(verifyWebhook(body, headers, keyPair().publicKey)).rejects.toThrow(/no matching signature/);
      await expect(verifyWebhook(body.replace('42', '43'), headers, publicKey)).rejects.toThrow(/no matching signature/);
      const hmacSecret = secretOf(new Uint8Array(32).fill(3));
      await expect(verifyWebhook(body, { ...headers, 'webhook-signature': sign(hmacSecret, 'msg_b', nowSeconds, body) }, publicKey)).rejects.toThrow(
        /no matching signature/,
      );
      // A v1a signature does not pass for an HMAC secret either.
      await expect(verifyWebhook(body, headers, hmacSecret)).rejects.toThrow(/no matching signature/);
      await expect(verifyWebhook(body, headers, 'whpk_AAAA')).rejects.toThrow(TypeError);
    });
  });
});
