import { validate } from '../domain/validate.js';
import { NotFoundError, ValidationError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import type { WebhookEndpointRepository } from '../ports/webhook-endpoint-repository.js';
import type { Delivery, ListDeliveriesQuery, PendingStats, RequeueSelector, StuckLine, StuckLineKey, WebhookOutbox } from '../ports/webhook-outbox.js';
import { ListEndpointsOptionsSchema } from './endpoints/endpoint-schemas.js';
import { DEFAULT_PAGE, endpointId, endpointPage, found } from './endpoints/tenant-webhook-endpoints.js';
import {
  isTenantEndpointId,
  PARKED_ACTIONS,
  type EndpointPage,
  type ParkedChoice,
  type WebhookEndpoint,
  type WebhookEndpointStatus,
} from './endpoints/webhook-endpoint.js';
import { requeueNow } from './requeue-now.js';
import { pruneInBatches, reclaimPrunedSpace } from './webhook-pruner.js';

export interface PruneOptions {
  /** Deletes deliveries that finished more than this many ms ago. @default the store's retention */
  readonly olderThan?: number;
}

export interface WebhookAdminOptions {
  readonly outbox: WebhookOutbox;
  readonly clock: Clock;
  readonly endpoints: WebhookEndpointRepository;
  /** Endpoints this process's dispatcher finds slow now (for `queueDelay`). @default none */
  readonly slowEndpoints?: () => readonly string[];
  /** Called after deliveries are re-queued (the store wakes its dispatcher). @default nothing */
  readonly onRequeue?: () => void;
  /** How long finished deliveries are kept (ms), the default of `prune`; `null` keeps them. @default null */
  readonly retentionMs?: number | null;
  /** Receives each pruned batch's count (the store emits `webhook.pruned`). @default nothing */
  readonly onPruned?: (count: number) => void;
  /** Told when reclaiming the space of pruned deliveries fails (the prune itself still counts). @default silentLogger */
  readonly logger?: Logger;
}

/** The longest wait of due deliveries for an attempt slot, in ms (see `WebhookAdmin.queueDelay`). */
export interface QueueDelay {
  readonly all: number;
  /** To endpoints not found slow. */
  readonly responsive: number;
  /** To endpoints whose attempts run long or time out. */
  readonly slow: number;
}

/** `store.allTenants.webhooks`: the operator's tools across every tenant, with no principal; tenants' own is `store.webhooks`. */
export class WebhookAdmin {
  readonly #options: WebhookAdminOptions;
  readonly #requeue: (selector: RequeueSelector) => Promise<number>;

  constructor(options: WebhookAdminOptions) {
    this.#options = options;
    this.#requeue = requeueNow(options);
  }

  /** Deliveries, newest first (`tenant`: as that tenant sees them); `NotFoundError` for an `endpointId` that is neither an endpoint nor a subscription with deliveries. */
  async list(query: Pick<ListDeliveriesQuery, 'status' | 'limit' | 'endpointId' | 'tenant'> = {}): Promise<Delivery[]> {
    const { status, limit, endpointId, tenant } = query;
    // `undefined` answers an unknown cursor only, and this query has none.
    const deliveries = (await this.#options.outbox.list({ status, limit, endpointId, tenant })) ?? [];
    if (deliveries.length === 0 && endpointId !== undefined) await this.#known(endpointId);
    return deliveries;
  }

  /** One delivery; `NotFoundError` when unknown. */
  async get(id: string): Promise<Delivery> {
    const delivery = await this.#options.outbox.get(id);
    if (!delivery) throw new NotFoundError(`delivery ${id} not found`);
    return delivery;
  }

  /** How many deliveries are pending and when the oldest was queued (one cheap storage read; metrics call it per scrape). */
  pendingStats(): Promise<PendingStats> {
    return this.#options.outbox.pendingStats();
  }

  /** The longest wait (ms) of due deliveries no dispatcher took yet, also split slow/responsive (responsive ones waiting is starvation). */
  async queueDelay(): Promise<QueueDelay> {
    const now = this.#options.clock.now();
    const waiting = await this.#options.outbox.waitingSince(now);
    const slow = new Set(this.#options.slowEndpoints?.() ?? []);
    const delay = { all: 0, responsive: 0, slow: 0 };
    for (const [endpointId, since] of waiting) {
      const waited = Math.max(0, now - since);
      const state = slow.has(endpointId) ? 'slow' : 'responsive';
      delay[state] = Math.max(delay[state], waited);
      delay.all = Math.max(delay.all, waited);
    }
    return delay;
  }

  /** Puts a failed delivery back in the queue, due now; `NotFoundError` when there is no failed delivery with that id. */
  async requeue(id: string): Promise<void> {
    if ((await this.#requeue({ id, from: 'failed' })) === 0) throw new NotFoundError(`no failed delivery with id ${id}`);
  }

  /** Puts a delivery in any state back in the queue, due now, same `webhook-id`; `NotFoundError` when unknown. */
  async resend(id: string): Promise<void> {
    if ((await this.#requeue({ id, from: 'any' })) === 0) throw new NotFoundError(`delivery ${id} not found`);
  }

  /** Queues again the failed deliveries to an endpoint or subscription id created at or after `since` (epoch ms); `NotFoundError` for an unknown id. */
  async recover(endpointId: string, since: number): Promise<{ requeued: number }> {
    const requeued = await this.#requeue({ endpointId, since });
    if (requeued === 0) await this.#known(endpointId);
    return { requeued };
  }

  /** Throws `NotFoundError` unless `id` is a tenant's endpoint or a subscription that deliveries went to (the only trace a subscription leaves in storage). */
  async #known(id: string): Promise<void> {
    const known = isTenantEndpointId(id)
      ? (await this.#options.endpoints.find(id)) !== undefined
      : ((await this.#options.outbox.list({ endpointId: id, limit: 1 })) ?? []).length > 0;
    if (!known) throw new NotFoundError(`no endpoint ${id.slice(0, 100)}, and no deliveries to a subscription with that id`);
  }

  /** Deletes the deliveries finished over `olderThan` ms ago (default: the retention), then reclaims their space; resolves with how many. */
  async prune(options: PruneOptions = {}): Promise<number> {
    const olderThan = options.olderThan ?? this.#options.retentionMs ?? null;
    if (olderThan === null) throw ValidationError.of('olderThan', 'is required: this store keeps finished deliveries (retention is off)');
    if (!Number.isFinite(olderThan) || olderThan < 0) throw ValidationError.of('olderThan', `must be a duration in ms of 0 or more, got ${String(olderThan)}`);
    const pruned = await pruneInBatches(this.#options.outbox, this.#options.clock.now() - olderThan, { onBatch: this.#options.onPruned });
    if (pruned > 0) await reclaimPrunedSpace(this.#options.outbox, this.#options.logger ?? silentLogger);
    return pruned;
  }

  /** Up to `limit` (default 100) lines whose waiting messages can never become due, oldest first; `[]` when every line can drain. */
  async stuckLines(options: { readonly limit?: number } = {}): Promise<StuckLine[]> {
    const limit = options.limit ?? DEFAULT_PAGE;
    if (!Number.isInteger(limit) || limit < 1) throw ValidationError.of('limit', `must be an integer of 1 or more, got ${String(limit)}`);
    return this.#options.outbox.stuckLines(limit);
  }

  /** Makes a stuck line's first waiting message due now (a line that is no longer stuck is left alone); resolves with how many became due. */
  async releaseStuckLine(line: StuckLineKey): Promise<number> {
    const released = await this.#options.outbox.releaseStuckLine(line, this.#options.clock.now());
    if (released > 0) this.#options.onRequeue?.();
    return released;
  }

  /** One page of every tenant's endpoints, ascending id. */
  async listEndpoints(options: unknown = {}): Promise<EndpointPage> {
    const { limit = DEFAULT_PAGE, after } = validate(ListEndpointsOptionsSchema, options);
    return endpointPage(await this.#options.endpoints.listAll({ after, limit: limit + 1 }), limit);
  }

  /** How each of these endpoints signs: `ed25519` (`v1a`) or `hmac` (`v1`); unknown ids are left out. One read each: meant for a page of them. */
  async signatureKinds(ids: readonly string[]): Promise<ReadonlyMap<string, 'hmac' | 'ed25519'>> {
    const entries = await Promise.all(ids.map(async (id) => [id, await this.#options.endpoints.find(id)] as const));
    return new Map(entries.flatMap(([id, entry]) => (entry ? [[id, entry.secrets.current.startsWith('whsk_') ? 'ed25519' : 'hmac'] as const] : [])));
  }

  /** Any tenant's endpoint; `NotFoundError` when unknown. */
  async getEndpoint(id: string): Promise<WebhookEndpoint> {
    return found(id, (await this.#options.endpoints.find(endpointId(id)))?.endpoint);
  }

  /**
   * Enables or disables any tenant's endpoint. Disabling parks its pending deliveries (kept for it, up to the storage's bound);
   * enabling a disabled one does with them what `parked` says (default: replays them all, in order).
   */
  async setEndpointStatus(id: string, status: WebhookEndpointStatus, reason?: string, parked?: ParkedChoice): Promise<WebhookEndpoint> {
    const disabledReason = status === 'disabled' ? (reason ?? 'disabled by an operator') : undefined;
    if (parked !== undefined) checkParkedChoice(parked);
    return found(id, await this.#options.endpoints.setStatus(endpointId(id), status, disabledReason, this.#options.clock.now(), parked));
  }
}

/** A `ParkedChoice` from a caller without types: a known action, and `since` only on a replay, as an epoch-ms time. */
function checkParkedChoice({ action, since }: ParkedChoice): void {
  if (!PARKED_ACTIONS.includes(action)) throw ValidationError.of('parked.action', `must be "replay" or "discard", got ${String(action)}`);
  if (since === undefined) return;
  if (action === 'discard') throw ValidationError.of('parked.since', 'applies to a replay only');
  if (!Number.isFinite(since)) throw ValidationError.of('parked.since', `must be a time in epoch ms, got ${String(since)}`);
}
