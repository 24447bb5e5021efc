import * as v from 'valibot';
import { objectMessage } from '../domain/validate.js';

/** Smallest accepted signing key, in bytes (Standard Webhooks recommends 24–64). */
export const MIN_SECRET_BYTES = 24;

const SECRET_MESSAGE = `secret must be "whsec_" followed by base64 of at least ${MIN_SECRET_BYTES} random bytes`;

/** Decodes the key of a `whsec_<base64>` secret, or undefined when malformed. */
export function secretKey(secret: string): Buffer | undefined {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!match?.[1]) return undefined;
  const key = Buffer.from(match[1], 'base64');
  // Reject texts that are not canonical base64 (Buffer.from skips junk silently).
  if (key.toString('base64').replace(/=+$/, '') !== match[1].replace(/=+$/, '')) return undefined;
  return key;
}

/** A subscriber to "New Plant": where to POST, how to sign, and which tenant (absent = all). */
export const WebhookSubscriptionSchema = v.strictObject(
  {
    url: v.pipe(
      v.string('url must be an http or https URL'),
      v.check((url) => {
        try {
          const parsed = new URL(url);
          return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
        } catch {
          return false;
        }
      }, 'url must be an absolute http or https URL'),
    ),
    secret: v.pipe(
      v.string(SECRET_MESSAGE),
      v.check((secret) => (secretKey(secret)?.length ?? 0) >= MIN_SECRET_BYTES, SECRET_MESSAGE),
    ),
    tenant: v.exactOptional(v.pipe(v.string('tenant must be a non-empty string'), v.minLength(1, 'tenant must be a non-empty string'))),
  },
  objectMessage('a subscription must be an object {url, secret, tenant?}'),
);

export type WebhookSubscription = v.InferOutput<typeof WebhookSubscriptionSchema>;

/** Whether the subscription wants events of this tenant. */
export function subscriptionMatches(subscription: WebhookSubscription, tenant: string): boolean {
  return subscription.tenant === undefined || subscription.tenant === tenant;
}
