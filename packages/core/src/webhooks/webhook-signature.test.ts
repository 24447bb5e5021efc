import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signWebhook } from './webhook-signature.js';
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
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook({ secret, id: 'msg_1', timestamp, body }) };
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
});
