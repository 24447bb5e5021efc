import type { WebhookSendOutcome } from '@plant-store/core/adapter';
import { parseRetryAfter } from './retry-after.js';

/**
 * What an HTTP answer means for a webhook: any 2xx is delivered;
 * 410 Gone stops retrying; everything else is retried, 3xx included
 * (redirects are never followed); on 429 and 503 a readable `Retry-After`
 * becomes the time not to retry before (core caps it).
 */
export function httpStatusOutcome(statusCode: number, retryAfter: string | undefined, now: number): WebhookSendOutcome {
  if (statusCode >= 200 && statusCode < 300) return { kind: 'delivered', statusCode };
  if (statusCode === 410) return { kind: 'gone', statusCode, reason: 'receiver answered 410 Gone: no more attempts' };
  if (statusCode >= 300 && statusCode < 400) {
    return { kind: 'retry', statusCode, reason: `receiver answered ${statusCode} (redirects are not followed)` };
  }
  const reason = `receiver answered ${statusCode}`;
  const wait = statusCode === 429 || statusCode === 503 ? parseRetryAfter(retryAfter, now) : undefined;
  return wait === undefined ? { kind: 'retry', statusCode, reason } : { kind: 'retry', statusCode, reason, notBefore: now + wait };
}
