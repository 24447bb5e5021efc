import { timingSafeEqual } from 'node:crypto';
import { parseJson } from '../json/json-codec.js';
import type { WebhookRequest, WebhookSendOutcome, WebhookTransport } from '../ports/webhook-transport.js';
import { signWebhook } from '../webhooks/webhook-signature.js';

/** One webhook request as the store handed it to the transport. */
export interface CapturedWebhook {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The exact body text (the signature covers it). */
  readonly body: string;
  /** The `webhook-id` header: the message id, the same on every attempt of one delivery. */
  readonly messageId: string;
  /** The `webhook-timestamp` header, in Unix seconds. */
  readonly timestamp: number;
  /** The `plant-store-event` header (`plant.created`, `plant.deleted`, …). */
  readonly eventType: string;
  /** The body parsed exactly (int64 ids beyond 2^53 as `bigint`). */
  json(): unknown;
  /** Whether one of the `webhook-signature` values is the Standard Webhooks signature of this request with `secret` (a `whsec_` secret). */
  signedWith(secret: string): boolean;
}

/** How the capturing transport answers one request; `index` counts every request so far, from 0. */
export type CaptureReply = (webhook: CapturedWebhook, index: number) => WebhookSendOutcome;

/** A `WebhookTransport` that sends nothing over a network: it records each request and answers as told. */
export interface CapturingTransport extends WebhookTransport {
  /** Every request so far, retries included, in order. */
  readonly sent: readonly CapturedWebhook[];
  /** Changes how later requests are answered. @default every request is delivered (204) */
  reply(handler: CaptureReply): void;
  /** Resolves with `sent` once it holds `count` requests (in a test store: with their outcomes recorded); rejects after `timeoutMs` of real time. @default timeoutMs 5000 */
  waitFor(count: number, options?: { timeoutMs?: number }): Promise<readonly CapturedWebhook[]>;
}

/** A transport that records what the store sends, for tests (see `createTestStore`). */
export function capturingTransport(): CapturingTransport {
  return recordingTransport(() => true).transport;
}

/** The capturing transport whose `waitFor` also waits for `settled(count)` (e.g. "that many outcomes recorded"), re-checked on `recheck()`. */
export function recordingTransport(settled: (count: number) => boolean): { transport: CapturingTransport; recheck(): void } {
  const sent: CapturedWebhook[] = [];
  const waiters = new Set<() => void>();
  const recheck = () => {
    for (const waiter of [...waiters]) waiter();
  };
  let handler: CaptureReply = () => ({ kind: 'delivered', statusCode: 204 });
  const transport: CapturingTransport = {
    sent,
    async send(request: WebhookRequest) {
      const webhook = capture(request);
      sent.push(webhook);
      recheck();
      return handler(webhook, sent.length - 1);
    },
    reply(next) {
      handler = next;
    },
    waitFor(count, { timeoutMs = 5_000 } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (sent.length < count || !settled(count)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(sent);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${sent.length} of ${count} webhook requests were sent (and their outcomes recorded) within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
  return { transport, recheck };
}

function capture(request: WebhookRequest): CapturedWebhook {
  const { url, headers, body } = request;
  const messageId = headers['webhook-id'] ?? '';
  const timestamp = Number(headers['webhook-timestamp']);
  return {
    url,
    headers: { ...headers },
    body,
    messageId,
    timestamp,
    eventType: headers['plant-store-event'] ?? '',
    json: () => parseJson(body),
    signedWith(secret) {
      // Signed again with the store's own signing code, then compared in constant time like a receiver would.
      const expected = Buffer.from(signWebhook({ secret, id: messageId, timestamp, body }));
      return (headers['webhook-signature'] ?? '').split(' ').some((value) => {
        const candidate = Buffer.from(value);
        return candidate.length === expected.length && timingSafeEqual(candidate, expected);
      });
    },
  };
}
