import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { ed25519SecretKey, MalformedSecretError, newEd25519KeyPair, signWebhook, verificationKey } from './webhook-signature.js';
import { secretKey } from './webhook-subscription.js';

describe('signWebhook', () => {
  it('matches the Standard Webhooks reference vector', () => {
    const signature = signWebhook({
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    });
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('is accepted by the standardwebhooks package, byte for byte of the body', () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const body = '{"id":9223372036854775807,"name":"Fern 🌿","tag":"ü"}';
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook({ secret, id: 'msg_1', timestamp, body }),
    };
    expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
    // One changed byte, id or timestamp breaks it.
    expect(() => new Webhook(secret).verify(body.replace('807', '806'), headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_2' })).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-timestamp': String(timestamp - 1) })).toThrow();
  });

  it('gives the same signature for the secret text and its decoded key', () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const input = { id: 'msg_x', timestamp: 1, body: '{}' };
    expect(signWebhook({ ...input, secret: secretKey(secret)! })).toBe(signWebhook({ ...input, secret }));
  });

  it('rejects a malformed secret', () => {
    expect(() => signWebhook({ secret: 'not-a-secret', id: 'a', timestamp: 1, body: '' })).toThrow(TypeError);
  });

  it('signs v1a with a whsk_ secret key, verifiable with the whpk_ public key alone', () => {
    const { secretKey, publicKey } = newEd25519KeyPair();
    expect(secretKey).toMatch(/^whsk_[A-Za-z0-9+/]{43}=$/);
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(verificationKey(secretKey)).toBe(publicKey);
    const input = { id: 'msg_e', timestamp: 1614265330, body: '{"id":1}' };
    const signature = signWebhook({ ...input, secret: secretKey });
    expect(signature).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(signWebhook({ ...input, secret: ed25519SecretKey(secretKey)! })).toBe(signature);
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(publicKey.slice(5), 'base64')]);
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    const content = Buffer.from(`${input.id}.${input.timestamp}.${input.body}`);
    expect(verify(null, content, key, Buffer.from(signature.slice(4), 'base64'))).toBe(true);
    expect(verify(null, Buffer.from('other'), key, Buffer.from(signature.slice(4), 'base64'))).toBe(false);
  });

  it('leaves an HMAC secret as it is for receivers, and rejects a malformed whsk_', () => {
    expect(verificationKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(ed25519SecretKey('whsk_AAAA')).toBeUndefined();
    expect(() => signWebhook({ secret: 'whsk_AAAA', id: 'a', timestamp: 1, body: '' })).toThrow(TypeError);
  });
});

describe('verificationKey of a malformed secret', () => {
  // A whsk_ value is a private key, however damaged: handing it out as it is would let a receiver sign.
  const whole = newEd25519KeyPair().secretKey;
  it.each([
    ['a whsk_ key one character short', whole.slice(0, -2) + '='],
    ['a whsk_ key of 31 bytes', `whsk_${Buffer.alloc(31, 5).toString('base64')}`],
    ['a whsk_ key with junk after it', `${whole}x`],
    ['a whsk_ key that is not base64', `whsk_${'!'.repeat(43)}=`],
    ['a whsec_ secret that is not base64', 'whsec_not base64'],
    ['an empty whsec_ secret', 'whsec_'],
    ['no prefix at all', Buffer.alloc(32, 5).toString('base64')],
  ])('throws for %s, without quoting it', (_, secret) => {
    expect(() => verificationKey(secret)).toThrow(MalformedSecretError);
    const message = (() => {
      try {
        return verificationKey(secret);
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/^the endpoint's secret is malformed/);
    expect(message).not.toContain(secret.slice(6, 16) || 'never');
  });
});
