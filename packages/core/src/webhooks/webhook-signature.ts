import { createHmac } from 'node:crypto';
import { secretKey } from './webhook-subscription.js';

export interface SignWebhookInput {
  /** `whsec_<base64>` secret, or its already decoded key (saves decoding it on every attempt). */
  readonly secret: string | Uint8Array;
  /** Message id, sent as `webhook-id`. */
  readonly id: string;
  /** Unix seconds of this attempt, sent as `webhook-timestamp`. */
  readonly timestamp: number;
  /** Exact body text that is sent. */
  readonly body: string;
}

/**
 * The Standard Webhooks `webhook-signature` value:
 * `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`. Throws when the
 * secret is not a well-formed `whsec_` secret (subscriptions are validated
 * before they get here, so that is a programming error).
 */
export function signWebhook({ secret, id, timestamp, body }: SignWebhookInput): string {
  const key = typeof secret === 'string' ? secretKey(secret) : secret;
  if (!key || key.length === 0) throw new TypeError('webhook secret must be "whsec_" followed by base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}
