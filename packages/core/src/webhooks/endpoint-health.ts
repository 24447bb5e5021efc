import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { WebhookEndpointRepository } from '../ports/webhook-endpoint-repository.js';
import type { AttemptOutcome, NewDelivery } from '../ports/webhook-outbox.js';
import { isTenantEndpointId } from './endpoints/webhook-endpoint.js';

export interface EndpointHealthOptions {
  readonly endpoints: WebhookEndpointRepository;
  /** Disable an endpoint whose attempts have all failed for this long (with a message exhausted meanwhile), in ms. */
  readonly disableAfterMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Called once an endpoint was disabled automatically, with its tenant, the reason and the time (epoch ms). @default nothing */
  readonly onDisabled?: (tenant: string, endpointId: string, reason: string, at: number) => Promise<unknown>;
}

/** Auto-disable: notes each attempt on the endpoint's failing streak, and disables it once all have failed for `disableAfterMs` with a message exhausted. */
export class EndpointHealth {
  readonly #options: EndpointHealthOptions;

  constructor(options: EndpointHealthOptions) {
    this.#options = options;
  }

  /** Notes the outcome of an attempt that started at `at` (an interrupted or parked one says nothing about the receiver); rejects when storage fails. */
  async observe(delivery: NewDelivery, outcome: AttemptOutcome, at: number): Promise<void> {
    if (!isTenantEndpointId(delivery.endpointId) || outcome.status === 'interrupted' || outcome.status === 'parked') return;
    const { endpoints, disableAfterMs } = this.#options;
    const note = { at, succeeded: outcome.status === 'delivered', exhausted: outcome.status === 'failed' };
    // Through a store's repository, a success on an endpoint known to have no failing streak costs no write (see forgettingChanges).
    const health = await endpoints.noteAttempt(delivery.endpointId, note);
    if (health?.failingSince === undefined || health.exhaustedAt === undefined || at - health.failingSince < disableAfterMs) return;
    await this.#disable(delivery.endpointId, health.failingSince);
  }

  async #disable(endpointId: string, failingSince: number): Promise<void> {
    const { endpoints, disableAfterMs, clock, logger } = this.#options;
    // Attempts still in flight when it was disabled end here too: disable (and log) once.
    if ((await endpoints.find(endpointId))?.endpoint.status !== 'enabled') return;
    const reason = `every attempt failed for ${describeDuration(disableAfterMs)} or more (since ${new Date(failingSince).toISOString()})`;
    const at = clock.now();
    const disabled = await endpoints.setStatus(endpointId, 'disabled', reason, at);
    if (!disabled) return;
    logger.warn('webhook endpoint disabled: every attempt failed', { endpointId, tenant: disabled.tenant, failingSince, disableAfterMs });
    await this.#options.onDisabled?.(disabled.tenant, endpointId, reason, at);
  }
}

/** `5d`, `36h`, `90s`, `250ms`: the largest unit that divides the duration. */
function describeDuration(ms: number): string {
  const units = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };
  const unit = Object.entries(units).find(([, size]) => ms >= size && ms % size === 0);
  return unit ? `${ms / unit[1]}${unit[0]}` : `${ms}ms`;
}
