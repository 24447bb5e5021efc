import type { PlantEventBus } from '../events/plant-events.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { WebhookEndpointRepository } from '../ports/webhook-endpoint-repository.js';
import type { WebhookOutbox } from '../ports/webhook-outbox.js';
import type { WebhookTransport } from '../ports/webhook-transport.js';
import type { DeliveryTargets } from './delivery-targets.js';
import type { OperationalEvents } from './operational-events.js';

/** How the dispatcher sends: the tunable part of its options (what `createPlantStore`'s `webhooks` option passes through). */
export interface WebhookDispatchSettings {
  /** Delays in ms between attempts; after the last, the delivery fails. @default DEFAULT_RETRY_SCHEDULE */
  readonly retrySchedule?: readonly number[];
  /** Per-attempt timeout in ms. @default 15000 */
  readonly timeoutMs?: number;
  /** `user-agent` header. @default `plant-store/<version of @plant-store/core>` */
  readonly userAgent?: string;
  /** Most attempts in flight at once, over all endpoints (attempts mostly wait on sockets, so this can be high). @default 256 */
  readonly concurrency?: number;
  /** Most attempts in flight at once to one endpoint that answers promptly (a slow one gets 2). @default 16 */
  readonly perEndpointConcurrency?: number;
  /** Most attempts in flight at once to one tenant's endpoints, so no tenant can take every slot (an operator subscription has only its endpoint cap). @default a quarter of `concurrency`, at least `perEndpointConcurrency` */
  readonly perTenantConcurrency?: number;
  /** An attempt still running after this many ms makes its endpoint slow until one answers sooner. @default the smaller of 5000 and `timeoutMs` */
  readonly slowAttemptMs?: number;
  /** How long a claim is held before another dispatcher may take the delivery over: more than an attempt plus recording it, and how long deliveries in flight at a crash wait. @default timeoutMs + 10000 */
  readonly leaseMs?: number;
  /** Fallback poll in ms for work this dispatcher was not woken for (queued by other processes, expired leases). @default 1000 */
  readonly pollIntervalMs?: number;
  /** Longest wait a receiver can ask for (HTTP: `Retry-After` on 429/503) that is honoured, in ms. @default 3600000 */
  readonly maxRetryAfterMs?: number;
  /** Each retry delay is spread by up to ± this fraction, so receivers failing together are not retried in lockstep. 0 disables. @default 0.1 */
  readonly jitter?: number;
  /** Most deliveries claimed per storage round trip. @default the smaller of 64 and `concurrency` */
  readonly batchSize?: number;
  /** How long `stop()` lets attempts finish before aborting them (recorded as interrupted, due again at once), and waits again before releasing the leases of those that ignored the abort. @default 2000 */
  readonly stopTimeoutMs?: number;
  /** Lease owner id, unique per dispatcher. @default `<host>:<pid>:<random>` */
  readonly owner?: string;
  /** A tenant endpoint whose attempts have all failed this long, with a message exhausted meanwhile, is disabled (ms). @default 432000000 (5 days) */
  readonly disableAfterMs?: number;
  /** Receives `webhook.attempted` after each recorded attempt (metrics). @default none */
  readonly events?: PlantEventBus;
}

export interface WebhookDispatcherOptions extends WebhookDispatchSettings {
  readonly outbox: WebhookOutbox;
  readonly transport: WebhookTransport;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Resolves each delivery's endpoint id to its URL and signing keys. */
  readonly targets: DeliveryTargets;
  /** Tenants' endpoints, for auto-disable. @default none: nothing is disabled */
  readonly endpoints?: WebhookEndpointRepository;
  /** Queues `webhook.endpoint.disabled` and `webhook.delivery.failed` when an endpoint is disabled or a delivery fails. @default none */
  readonly operationalEvents?: OperationalEvents;
}
