import type { ClaimedDelivery, NewDelivery } from '../ports/webhook-outbox.js';
import type { WebhookSendOutcome } from '../ports/webhook-transport.js';
import { addTraceHeaders, endAttemptSpan, inAttemptSpan, startAttemptSpan } from '../tracing/attempt-span.js';
import type { DeliveryTarget } from './delivery-targets.js';
import type { EndpointThrottle } from './endpoint-throttle.js';
import { unsendableHeaders } from './endpoints/refused-header-names.js';
import { ENDPOINT_DELETED_ERROR, ENDPOINT_DISABLED_ERROR, isTenantEndpointId } from './endpoints/webhook-endpoint.js';
import type { WebhookDispatcherOptions } from './dispatcher-options.js';
import { signWebhook } from './webhook-signature.js';

export interface AttemptContext extends Pick<WebhookDispatcherOptions, 'transport' | 'targets' | 'clock'> {
  readonly throttle: EndpointThrottle;
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
  /** Nothing was sent: the endpoint is disabled, so the delivery is parked for it. */
  readonly parked?: true;
}

/** No attempt was made: the endpoint's rate limit is reached for now (the delivery is released, not dropped). */
export const THROTTLED = 'throttled';

/** One attempt: resolve the endpoint, check its rate limit, sign, send. Never rejects: a disabled endpoint parks the delivery, none is `failed`; headers that cannot be sent, a secret that cannot sign or a transport that throws, a `retry`. */
export async function attemptDelivery(delivery: ClaimedDelivery, context: AttemptContext, signal: AbortSignal): Promise<AttemptResult | typeof THROTTLED> {
  const startedAt = context.clock.now();
  let target: DeliveryTarget | undefined;
  let lookupFailed: WebhookSendOutcome | undefined;
  try {
    target = await context.targets.resolve(delivery);
  } catch (error) {
    lookupFailed = { kind: 'retry', reason: `endpoint lookup failed: ${describeError(error)}` };
  }
  if (target?.disabled)
    return { startedAt, finishedAt: startedAt, outcome: { kind: 'failed', reason: ENDPOINT_DISABLED_ERROR }, interrupted: false, parked: true };
  if (target && !(await context.throttle.admit(delivery.endpointId, target.rateLimit, context.clock.now()))) return THROTTLED;
  const span = startAttemptSpan(delivery, target?.url);
  const send = () => sendTo(target, { delivery, context, signal, startedAt, span });
  const outcome = lookupFailed ?? (await inAttemptSpan(span, send));
  const result = { startedAt, finishedAt: context.clock.now(), outcome, interrupted: signal.aborted && outcome.kind !== 'delivered' };
  endAttemptSpan(span, outcome, result.interrupted);
  return result;
}

/** Sends the delivery to its target, or says why it cannot be sent this time. Never rejects. */
async function sendTo(
  target: DeliveryTarget | undefined,
  {
    delivery,
    context,
    signal,
    startedAt,
    span,
  }: { delivery: ClaimedDelivery; context: AttemptContext; signal: AbortSignal; startedAt: number; span: ReturnType<typeof startAttemptSpan> },
): Promise<WebhookSendOutcome> {
  if (!target) return { kind: 'failed', reason: isTenantEndpointId(delivery.endpointId) ? ENDPOINT_DELETED_ERROR : 'no subscription for this endpoint' };
  // Retried: once the tenant replaces the headers, queued messages go out.
  const unsendable = unsendableHeaders(target.headers);
  if (unsendable !== undefined) return { kind: 'retry', reason: unsendable };
  // Fail closed: a message goes out with every live signature or not at all.
  if (target.signingError !== undefined) return { kind: 'retry', reason: `cannot sign: ${target.signingError}` };
  let headers: Record<string, string>;
  try {
    headers = webhookHeaders(delivery, target, startedAt, context.userAgent);
  } catch (error) {
    return { kind: 'retry', reason: `cannot sign: ${describeError(error)}` };
  }
  try {
    return await context.transport.send({
      url: target.url,
      headers: addTraceHeaders(headers, span),
      body: delivery.payload,
      timeoutMs: context.timeoutMs,
      signal,
      ...(target.restrictDestination ? { restrictDestination: true } : {}),
      ...(delivery.orderingKey !== undefined ? { orderingKey: delivery.orderingKey } : {}),
    });
  } catch (error) {
    return { kind: 'retry', reason: `transport failed: ${describeError(error)}` };
  }
}

/** The endpoint's own headers, then Standard Webhooks' (fresh timestamp and signature, same id) and the event type, which they cannot replace. */
function webhookHeaders(delivery: NewDelivery, target: DeliveryTarget, now: number, userAgent: string): Record<string, string> {
  if (target.keys.length === 0) throw new Error('no secret to sign with');
  const timestamp = Math.floor(now / 1000);
  const signatures = target.keys.map((secret) => signWebhook({ secret, id: delivery.id, timestamp, body: delivery.payload }));
  return {
    ...target.headers,
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
    'plant-store-event': delivery.eventType,
  };
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The error and the causes under it, for a log line: a storage error's own message names only the action that failed. */
export function describeFailure(error: unknown): string {
  const messages: string[] = [];
  for (let cause = error; cause !== undefined && messages.length < 5; cause = cause instanceof Error ? cause.cause : undefined) {
    messages.push(describeError(cause));
  }
  return messages.join(': ');
}
