import { parseJson } from './json-codec.js';
import { payloadFromJson, type WebhookPayload } from './webhook-types.js';

/** The request is not an authentic, fresh Plant Store webhook. Answer it with a 4xx and do not act on it. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Request headers as a `Headers` (fetch, Request) or a plain object (Node's `req.headers`); names in any case. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds (older: a replay; newer: a wrong clock). @default 300 */
  readonly toleranceSeconds?: number;
  /** The time to check the timestamp against. @default new Date() */
  readonly now?: Date;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() === name) return typeof value === 'string' ? value : value?.join(', ');
  }
  return undefined;
}

/** The bytes of base64 text, or an empty array when it is not base64. */
function base64Bytes(encoded: string): Uint8Array<ArrayBuffer> {
  try {
    return Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}

type VerificationKey = { readonly kind: 'v1' | 'v1a'; readonly key: Uint8Array<ArrayBuffer> };

/** The key a receiver verifies with: a `whpk_` Ed25519 public key, else the HMAC key of a `whsec_` secret (the prefix optional, as in the standardwebhooks package). */
function verificationKey(secret: string): VerificationKey {
  if (secret.startsWith('whpk_')) {
    const key = base64Bytes(secret.slice('whpk_'.length));
    if (key.length !== 32) throw new TypeError('webhook public key must be "whpk_" followed by base64 of 32 bytes');
    return { kind: 'v1a', key };
  }
  const key = base64Bytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (key.length === 0) throw new TypeError('webhook secret must be "whsec_" followed by base64');
  return { kind: 'v1', key };
}

/** Whether any signature of the key's kind in a `webhook-signature` header signs `content`: Ed25519 for `v1a`, else HMAC-SHA256. */
async function anySignatureMatches({ kind, key }: VerificationKey, content: Uint8Array<ArrayBuffer>, header: string): Promise<boolean> {
  const signatures = header.split(' ').flatMap((versioned) => {
    const [version, signature] = versioned.split(',');
    return version === kind && signature !== undefined ? [signature] : [];
  });
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) throw new TypeError('verifyWebhook needs WebCrypto (crypto.subtle; browsers offer it on https only)');
  if (kind === 'v1a') {
    const publicKey = await subtle.importKey('raw', key, { name: 'Ed25519' }, false, ['verify']);
    for (const signature of signatures) {
      const bytes = base64Bytes(signature);
      if (bytes.length === 64 && (await subtle.verify({ name: 'Ed25519' }, publicKey, bytes, content))) return true;
    }
    return false;
  }
  const hmacKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = btoa(String.fromCharCode(...new Uint8Array(await subtle.sign('HMAC', hmacKey, content))));
  return signatures.some((signature) => constantTimeEqual(signature, expected));
}

/** Compares without an early exit, so the time taken does not tell how much of a forged signature was right. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}

function checkTimestamp(timestamp: string, options: VerifyWebhookOptions): void {
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  const seconds = Number(timestamp);
  if (now - seconds > tolerance) throw new WebhookVerificationError('message timestamp too old');
  if (seconds > now + tolerance) throw new WebhookVerificationError('message timestamp too new');
}

/**
 * Verifies a webhook the Standard Webhooks way and returns its payload (plant ids as exact `bigint`). `body` is the raw
 * request body; `secret` what the endpoint's create (or `getSecret`) gave: a `whsec_` secret checks HMAC-SHA256 (`v1,`),
 * a `whpk_` public key Ed25519 (`v1a,`), over `<webhook-id>.<webhook-timestamp>.<body>`; any one signature of that kind
 * may match (a rotation sends one per key). `WebhookVerificationError` for missing headers, a stale timestamp, no
 * matching signature or a body that is no event payload; `TypeError` for a malformed secret.
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookPayload> {
  const verifier = verificationKey(secret);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  checkTimestamp(timestamp, options);
  const content = new Uint8Array(await new Blob([`${id}.${timestamp}.`, body as Uint8Array<ArrayBuffer>]).arrayBuffer());
  if (!(await anySignatureMatches(verifier, content, signatures))) throw new WebhookVerificationError('no matching signature');
  let parsed: unknown;
  try {
    parsed = parseJson(typeof body === 'string' ? body : new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('the signed body is not valid JSON');
  }
  const payload = payloadFromJson(parsed);
  if (payload === undefined) throw new WebhookVerificationError('the signed body is not a Plant Store event payload');
  return payload;
}
