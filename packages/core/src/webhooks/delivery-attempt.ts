import type { Clock } from '../ports/clock.js';
import type { NewDelivery } from '../ports/webhook-outbox.js';
import type { WebhookSendOutcome, WebhookTransport } from '../ports/webhook-transport.js';
import type { DeliveryTarget, DeliveryTargets } from './delivery-targets.js';
import { signWebhook } from './webhook-signature.js';

/** What an attempt needs besides the delivery. */
export interface AttemptContext {
  readonly transport: WebhookTransport;
  readonly targets: DeliveryTargets;
  readonly clock: Clock;
  readonly timeoutMs: number;
  readonly userAgent: string;
}

/** One attempt as it happened: when, what came of it, and whether a shutdown cut it short. */
export interface AttemptResult {
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly outcome: WebhookSendOutcome;
  /** The signal aborted and the receiver did not take the message. */
  readonly interrupted: boolean;
}

/**
 * Makes one attempt: resolves the delivery's endpoint, signs, and sends
 * through the transport. Never rejects: a missing endpoint is a `failed`
 * outcome, a transport that throws (against its contract) a `retry`.
 */
export async function attemptDelivery(delivery: NewDelivery, context: AttemptContext, signal: AbortSignal): Promise<AttemptResult> {
  const startedAt = context.clock.now();
  const outcome = await send(delivery, context, signal, startedAt);
  const interrupted = signal.aborted && outcome.kind !== 'delivered';
  return { startedAt, finishedAt: context.clock.now(), outcome, interrupted };
}

async function send(delivery: NewDelivery, context: AttemptContext, signal: AbortSignal, now: number): Promise<WebhookSendOutcome> {
  let target: DeliveryTarget | undefined;
  try {
    target = await context.targets.resolve(delivery);
  } catch (error) {
    return { kind: 'retry', reason: `endpoint lookup failed: ${describe(error)}` };
  }
  if (!target) return { kind: 'failed', reason: 'no subscription for this endpoint' };
  try {
    return await context.transport.send({
      url: target.url,
      headers: webhookHeaders(delivery, target, now, context.userAgent),
      body: delivery.payload,
      timeoutMs: context.timeoutMs,
      signal,
    });
  } catch (error) {
    return { kind: 'retry', reason: `transport failed: ${describe(error)}` };
  }
}

/** The Standard Webhooks request headers of one attempt (a fresh timestamp and signature each time, the same id). */
export function webhookHeaders(delivery: NewDelivery, target: DeliveryTarget, now: number, userAgent: string): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  const signatures = target.keys.map((secret) => signWebhook({ secret, id: delivery.id, timestamp, body: delivery.payload }));
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
