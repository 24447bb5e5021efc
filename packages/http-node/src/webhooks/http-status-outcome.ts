import type { WebhookSendOutcome } from '@plant-store/core/adapter';
import { parseRetryAfter } from './retry-after.js';

/** 2xx is delivered, 410 stops retrying, anything else is retried (3xx too); on 429 and 503 `Retry-After` is honoured (core caps it). */
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
