import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import { secretKey } from './webhook-subscription.js';

/** A decoded signing key: HMAC key bytes, or an Ed25519 private key. */
export type SigningKey = Uint8Array | KeyObject;

export interface SignWebhookInput {
  /** `whsec_<base64>` or `whsk_<base64>` secret, or its already decoded key (saves decoding it on every attempt). */
  readonly secret: string | SigningKey;
  readonly id: string;
  /** Unix seconds of this attempt, sent as `webhook-timestamp`. */
  readonly timestamp: number;
  readonly body: string;
}

// PKCS #8 wrapping of a raw 32-byte Ed25519 private key (RFC 8410): Node imports keys only in a container format.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const WHSK = /^whsk_([A-Za-z0-9+/]{43}=)$/;

/** The Ed25519 private key of a `whsk_<base64 of 32 bytes>` secret, or undefined when malformed. */
export function ed25519SecretKey(secret: string): KeyObject | undefined {
  const match = WHSK.exec(secret);
  if (!match?.[1]) return undefined;
  const raw = Buffer.from(match[1], 'base64');
  if (raw.length !== 32 || raw.toString('base64') !== match[1]) return undefined;
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, raw]), format: 'der', type: 'pkcs8' });
}

/** The key that signs with a stored secret (`whsec_` or `whsk_`), or undefined when malformed. */
export function signingKey(secret: string): SigningKey | undefined {
  return secret.startsWith('whsk_') ? ed25519SecretKey(secret) : secretKey(secret);
}

/** A new Ed25519 key pair as Standard Webhooks writes it: `whsk_` and `whpk_`, each followed by base64 of the raw 32-byte key. */
export function newEd25519KeyPair(): { secretKey: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const secret = `whsk_${Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url').toString('base64')}`;
  return { secretKey: secret, publicKey: verificationKey(secret) };
}

/** What a receiver verifies with: a `whsec_` secret itself (HMAC is symmetric), the `whpk_` public key of a `whsk_` one. Throws for a malformed secret, which is never handed out as it is (it may be a private key). */
export function verificationKey(secret: string): string {
  if (secret.startsWith('whsk_')) {
    const key = ed25519SecretKey(secret);
    if (!key) throw new MalformedSecretError();
    return `whpk_${Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x!, 'base64url').toString('base64')}`;
  }
  if (!secretKey(secret)?.length) throw new MalformedSecretError();
  return secret;
}

/** A stored secret that is neither a `whsec_` secret nor a `whsk_` key; the message never quotes it. */
export class MalformedSecretError extends Error {
  constructor(which = "the endpoint's secret") {
    super(`${which} is malformed (not "whsec_" or "whsk_" followed by base64 of a key); rotate it to make a new one`);
    this.name = 'MalformedSecretError';
  }
}

/** The `webhook-signature` value over `"<id>.<timestamp>.<body>"`: `v1,<HMAC-SHA256>` for `whsec_`, `v1a,<Ed25519>` for `whsk_`; throws for a malformed secret. */
export function signWebhook({ secret, id, timestamp, body }: SignWebhookInput): string {
  const key = typeof secret === 'string' ? signingKey(secret) : secret;
  if (!key || ('length' in key && key.length === 0)) throw new TypeError('webhook secret must be "whsec_" or "whsk_" followed by base64');
  const content = `${id}.${timestamp}.${body}`;
  if (key instanceof KeyObject) return `v1a,${sign(null, Buffer.from(content, 'utf8'), key).toString('base64')}`;
  return `v1,${createHmac('sha256', key).update(content, 'utf8').digest('base64')}`;
}
