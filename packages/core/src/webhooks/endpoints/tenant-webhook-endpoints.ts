import type { Principal } from '../../domain/principal.js';
import { validate } from '../../domain/validate.js';
import { ConflictError, LimitExceededError, NotFoundError, ValidationError } from '../../errors.js';
import type { Clock } from '../../ports/clock.js';
import type { WebhookEndpointChanges, WebhookEndpointRepository } from '../../ports/webhook-endpoint-repository.js';
import type { Delivery, RequeueSelector, WebhookOutbox } from '../../ports/webhook-outbox.js';
import { hasMaskedCredentials, maskUrlCredentials, type DestinationKind } from '../destination-url.js';
import { newMessageId } from '../message-id.js';
import { requeueNow } from '../requeue-now.js';
import { requireScope } from '../../service/plant-service.js';
import { newEd25519KeyPair, signingKey, verificationKey } from '../webhook-signature.js';
import { filterEvent, matchesFilter } from './endpoint-filter.js';
import {
  ED25519_SECRET_MESSAGE,
  endpointPatchSchema,
  FilterCheckSchema,
  ListEndpointsOptionsSchema,
  newEndpointSchema,
  RecoverSchema,
  RotateSecretSchema,
  SendTestSchema,
} from './endpoint-schemas.js';
import {
  DISABLED_BY_TENANT,
  isTenantEndpointId,
  newEndpointId,
  newEndpointSecret,
  type EndpointPage,
  type ParkedChoice,
  type WebhookEndpoint,
  type WebhookEventType,
} from './webhook-endpoint.js';
import { WEBHOOK_EVENT_CATALOGUE, type WebhookEventDescription } from './webhook-event-catalogue.js';

export interface TenantWebhookEndpointsOptions {
  readonly endpoints: WebhookEndpointRepository;
  readonly outbox: WebhookOutbox;
  readonly clock: Clock;
  /** How long the previous secret still signs after a rotation, in ms. */
  readonly secretOverlapMs: number;
  /** Most endpoints one tenant may have; creating one more is a `LimitExceededError`. */
  readonly maxEndpointsPerTenant: number;
  /** Accept endpoint URLs whose host is a non-public IP literal. @default false */
  readonly allowPrivateDestinations?: boolean;
  /** Destination kinds an endpoint URL may name. @default ['http'] */
  readonly destinationKinds?: readonly DestinationKind[];
  /** Called after deliveries were queued again (the store wakes its dispatcher). @default nothing */
  readonly onRequeue?: () => void;
  /** Called after an endpoint was created (the store's dispatcher then claims for tenant endpoints on every wake). @default nothing */
  readonly onCreate?: () => void;
}

const MASKED_ON_CREATE = 'url has masked credentials (***): give the real user and password';
const MASKED_ON_UPDATE =
  "url has masked credentials (***) but is not the endpoint's URL: give the real user and password to change it, or send its URL back unchanged to keep them";

/** Page size (endpoints, deliveries) when the caller gives no `limit`. */
export const DEFAULT_PAGE = 100;

const HOUR_MS = 3_600_000;
/** The windows of an endpoint's statistics, by name, newest first. */
const STATS_WINDOWS = [
  ['1h', HOUR_MS],
  ['24h', 24 * HOUR_MS],
  ['7d', 7 * 24 * HOUR_MS],
] as const;

/** Attempts in one window; `successRate` is `null` when there were none. */
export interface EndpointWindowStats {
  readonly succeeded: number;
  readonly failed: number;
  readonly successRate: number | null;
}

/** Hours in `EndpointStats.hourly`. */
export const STATS_HOURS = 24;

/** Attempts in one clock hour. */
export interface EndpointHourStats {
  /** Start of the hour (a whole UTC hour), epoch ms. */
  readonly start: number;
  readonly succeeded: number;
  readonly failed: number;
}

/** An endpoint's health: its attempts over the last hour, day and week, hour by hour over the last day, and its last attempt (within the week). Times are epoch ms. */
export interface EndpointStats {
  readonly endpointId: string;
  readonly lastAttempt?: { readonly at: number; readonly statusCode?: number };
  readonly windows: { readonly '1h': EndpointWindowStats; readonly '24h': EndpointWindowStats; readonly '7d': EndpointWindowStats };
  /** {@link STATS_HOURS} clock hours, oldest first; the last is the current hour so far. */
  readonly hourly: readonly EndpointHourStats[];
}

/** What a filter check answers: for each example of the event catalogue, whether the filter matches it. */
export interface FilterCheck {
  readonly results: readonly { readonly eventType: WebhookEventType; readonly matches: boolean }[];
}

/** Tenants' self-service on their webhook endpoints: scope checked first, then input; another tenant's id is a `NotFoundError`. */
export class TenantWebhookEndpoints {
  readonly #options: TenantWebhookEndpointsOptions;
  readonly #requeue: (selector: RequeueSelector) => Promise<number>;
  readonly #newSchema: ReturnType<typeof newEndpointSchema>;
  readonly #patchSchema: ReturnType<typeof endpointPatchSchema>;

  constructor(options: TenantWebhookEndpointsOptions) {
    this.#options = options;
    this.#requeue = requeueNow(options);
    const urlOptions = { allowPrivate: options.allowPrivateDestinations ?? false, kinds: options.destinationKinds ?? ['http' as const] };
    this.#newSchema = newEndpointSchema(urlOptions);
    this.#patchSchema = endpointPatchSchema(urlOptions);
  }

  /** Creates an enabled endpoint; returns it with its `whsec_` secret, or for `'ed25519'` its `whpk_` public key. `LimitExceededError` at the cap. */
  async create(principal: Principal, input: unknown): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    requireScope(principal, 'webhooks:write');
    const { eventTypes, secret, signature, headers, ...fields } = validate(this.#newSchema, input);
    if (hasMaskedCredentials(fields.url)) throw ValidationError.of('url', MASKED_ON_CREATE);
    const keys = signature === 'ed25519' ? newEd25519KeyPair() : undefined;
    const chosen = keys?.secretKey ?? secret ?? newEndpointSecret();
    const max = this.#options.maxEndpointsPerTenant;
    const withHeaders = headers && Object.keys(headers).length > 0 ? { ...fields, headers } : fields;
    const created = {
      ...withHeaders,
      id: newEndpointId(),
      tenant: principal.tenant,
      eventTypes: eventTypes ?? ['plant.created'],
      secret: chosen,
      createdAt: this.#options.clock.now(),
    };
    const endpoint = await this.#options.endpoints.create(created, max);
    if (!endpoint) throw new LimitExceededError(`a tenant may have at most ${max} webhook endpoint${max === 1 ? '' : 's'}`, max);
    this.#options.onCreate?.();
    return { endpoint, secret: keys?.publicKey ?? chosen };
  }

  /** One page of the caller's endpoints in ascending id order (`limit` 1…1000, default 100; `after` an endpoint id). */
  async list(principal: Principal, options: unknown = {}): Promise<EndpointPage> {
    requireScope(principal, 'webhooks:read');
    const { limit = DEFAULT_PAGE, after } = validate(ListEndpointsOptionsSchema, options);
    return endpointPage(await this.#options.endpoints.list(principal.tenant, { after, limit: limit + 1 }), limit);
  }

  async get(principal: Principal, id: string): Promise<WebhookEndpoint> {
    requireScope(principal, 'webhooks:read');
    return this.#own(principal, id);
  }

  /**
   * Applies the patch; an empty patch returns the endpoint. `status: 'disabled'` parks its pending deliveries; `status: 'enabled'`
   * of a disabled one replays what was parked (`parked: 'discard'` ends it failed; `parkedSince` replays only what was created since).
   */
  async update(principal: Principal, id: string, patch: unknown): Promise<WebhookEndpoint> {
    requireScope(principal, 'webhooks:write');
    const { status, headers, url, parked, parkedSince, ...rest } = validate(this.#patchSchema, patch);
    const newUrl = await this.#unmasked(principal, id, url);
    const given = newUrl === undefined ? rest : { ...rest, url: newUrl };
    // `{}` and `null` both leave the endpoint without headers.
    const fields = headers === undefined ? given : { ...given, headers: headers && Object.keys(headers).length > 0 ? headers : null };
    // Nothing to change: the endpoint as it is (its updatedAt stays).
    if (status === undefined && Object.keys(fields).length === 0) return this.#own(principal, id);
    const changes: WebhookEndpointChanges = {
      ...fields,
      ...(status !== undefined ? { status, disabledReason: status === 'disabled' ? DISABLED_BY_TENANT : null } : {}),
      ...parkedChange(parked, parkedSince),
      updatedAt: this.#options.clock.now(),
    };
    return found(id, await this.#options.endpoints.update(principal.tenant, endpointId(id), changes));
  }

  /** Deletes the endpoint; its pending deliveries end as failed (`endpoint deleted`). */
  async delete(principal: Principal, id: string): Promise<void> {
    requireScope(principal, 'webhooks:write');
    if (!(await this.#options.endpoints.delete(principal.tenant, endpointId(id), this.#options.clock.now()))) notFound(id);
  }

  /** What a receiver verifies the endpoint's deliveries with: its current `whsec_` secret, or the `whpk_` public key of its current Ed25519 key pair. */
  async getSecret(principal: Principal, id: string): Promise<string> {
    requireScope(principal, 'webhooks:write');
    return verificationKey(found(id, await this.#options.endpoints.secrets(principal.tenant, endpointId(id))).current);
  }

  /** A new current secret of the endpoint's kind (`{secret}` may be given for HMAC), returned as `getSecret` does; the old one signs on for the overlap. */
  async rotateSecret(principal: Principal, id: string, input: unknown = {}): Promise<string> {
    requireScope(principal, 'webhooks:write');
    const given = validate(RotateSecretSchema, input).secret;
    const endpoints = this.#options.endpoints;
    const current = found(id, await endpoints.secrets(principal.tenant, endpointId(id))).current;
    const ed25519 = current.startsWith('whsk_');
    if (ed25519 && given !== undefined) throw new ValidationError([{ field: 'secret', message: ED25519_SECRET_MESSAGE }]);
    const keys = ed25519 ? newEd25519KeyPair() : undefined;
    const secret = keys?.secretKey ?? given ?? newEndpointSecret();
    const now = this.#options.clock.now();
    // A malformed secret cannot sign, so it gets no overlap: rotating is how it is repaired, at once.
    const overlapMs = signingKey(current) === undefined ? 0 : this.#options.secretOverlapMs;
    if (!(await endpoints.rotateSecret(principal.tenant, endpointId(id), secret, now + overlapMs, now))) notFound(id);
    return keys?.publicKey ?? secret;
  }

  /** Queues again every failed delivery to the endpoint created at or after `since` (RFC 3339). */
  async recover(principal: Principal, id: string, input: unknown): Promise<{ requeued: number }> {
    requireScope(principal, 'webhooks:write');
    const { since } = validate(RecoverSchema, input);
    await this.#own(principal, id);
    return { requeued: await this.#requeue({ endpointId: id, since }) };
  }

  /** How the endpoint's attempts went over the last hour, day and week and in each of the last 24 clock hours (2xx succeeded, anything else failed), and its last attempt in that week. */
  async stats(principal: Principal, id: string): Promise<EndpointStats> {
    requireScope(principal, 'webhooks:read');
    const endpoint = await this.#own(principal, id);
    const now = this.#options.clock.now();
    const currentHour = Math.floor(now / HOUR_MS) * HOUR_MS;
    const hourStarts = Array.from({ length: STATS_HOURS }, (_, index) => currentHour - (STATS_HOURS - 1 - index) * HOUR_MS);
    // One read for all of it: the hours are windows too (attempts since each hour's start), told apart by subtraction.
    const { windows, lastAttempt } = await this.#options.outbox.endpointAttemptStats(endpoint.id, [...STATS_WINDOWS.map(([, ms]) => now - ms), ...hourStarts]);
    const counted = (index: number) => windows[index] ?? { succeeded: 0, failed: 0 };
    const byName = Object.fromEntries(
      STATS_WINDOWS.map(([name], index) => {
        const { succeeded, failed } = counted(index);
        const total = succeeded + failed;
        return [name, { succeeded, failed, successRate: total === 0 ? null : succeeded / total }];
      }),
    ) as EndpointStats['windows'];
    const hourly = hourStarts.map((start, hour) => {
      const since = counted(STATS_WINDOWS.length + hour);
      const later = counted(STATS_WINDOWS.length + hour + 1); // none after the current hour
      return { start, succeeded: since.succeeded - later.succeeded, failed: since.failed - later.failed };
    });
    return { endpointId: endpoint.id, ...(lastAttempt ? { lastAttempt } : {}), windows: byName, hourly };
  }

  /**
   * Queues the example body of `{eventType}` (subscribed or not) to this endpoint only, marked `test`; returns it. `ConflictError` when it
   * is disabled, or when the example does not match its filter (nothing is queued, as for a real event).
   */
  async sendTest(principal: Principal, id: string, input: unknown): Promise<Delivery> {
    requireScope(principal, 'webhooks:write');
    const { eventType } = validate(SendTestSchema, input);
    const endpoint = await this.#own(principal, id);
    if (endpoint.status === 'disabled') throw new ConflictError(`endpoint ${endpoint.id} is disabled: enable it to send a test event`);
    const payload = WEBHOOK_EVENT_CATALOGUE.find((entry) => entry.type === eventType)!.example;
    if (endpoint.filter && !matchesFilter(endpoint.filter, filterEvent(eventType, principal.tenant, payload))) {
      throw new ConflictError(`the example of ${eventType} does not match the filter of endpoint ${endpoint.id}: nothing was queued`);
    }
    const delivery = {
      id: newMessageId(),
      tenant: principal.tenant,
      endpointId: endpoint.id,
      eventType,
      payload,
      createdAt: this.#options.clock.now(),
      test: true,
    } as const;
    await this.#options.outbox.enqueue(delivery);
    this.#options.onRequeue?.();
    // Read back, unless it is already gone (deleted with its endpoint meanwhile): then as queued.
    return (
      (await this.#options.outbox.get(delivery.id)) ?? { ...delivery, status: 'pending', attemptCount: 0, nextAttemptAt: delivery.createdAt, attempts: [] }
    );
  }

  /** Whether `{filter}` matches each example of the event catalogue (as the caller's event), in catalogue order; nothing is stored. */
  checkFilter(principal: Principal, input: unknown): FilterCheck {
    requireScope(principal, 'webhooks:read');
    const { filter } = validate(FilterCheckSchema, input);
    return {
      results: WEBHOOK_EVENT_CATALOGUE.map(({ type, example }) => ({
        eventType: type,
        matches: matchesFilter(filter, filterEvent(type, principal.tenant, example)),
      })),
    };
  }

  /** The event types an endpoint can subscribe to, with a description and an example body each. */
  eventTypes(principal: Principal): readonly WebhookEventDescription[] {
    requireScope(principal, 'webhooks:read');
    return WEBHOOK_EVENT_CATALOGUE;
  }

  /**
   * The URL to store from a patch's `url`: one with masked credentials (`***`, as answers show them) sent back unchanged is no
   * change, so the stored credentials stay (a form can send the URL it was shown); any other masked one is refused, as its
   * `***` is no credential.
   */
  async #unmasked(principal: Principal, id: string, url: string | undefined): Promise<string | undefined> {
    if (url === undefined || !hasMaskedCredentials(url)) return url;
    if (maskUrlCredentials((await this.#own(principal, id)).url) === url) return undefined;
    throw ValidationError.of('url', MASKED_ON_UPDATE);
  }

  async #own(principal: Principal, id: string): Promise<WebhookEndpoint> {
    return found(id, await this.#options.endpoints.get(principal.tenant, endpointId(id)));
  }
}

/** The `parked` change of a patch: none when neither field was given (the storage then replays all). */
function parkedChange(action: ParkedChoice['action'] | undefined, since: number | undefined): { parked?: ParkedChoice } {
  if (action === undefined && since === undefined) return {};
  if (action === 'discard') return { parked: { action } };
  return { parked: since === undefined ? { action: 'replay' } : { action: 'replay', since } };
}

/** The id to look up: anything that cannot be an endpoint id finds nothing (a `NotFoundError`, as for a missing one). */
export function endpointId(id: unknown): string {
  return typeof id === 'string' && isTenantEndpointId(id) ? id : '';
}

export function found<T>(id: unknown, value: T | undefined): T {
  if (value === undefined) notFound(id);
  return value;
}

function notFound(id: unknown): never {
  throw new NotFoundError(`endpoint ${String(id).slice(0, 100)} not found`);
}

/** A page from `limit + 1` rows: the extra row only says that more remain. */
export function endpointPage(rows: WebhookEndpoint[], limit: number): EndpointPage {
  if (rows.length <= limit) return { endpoints: rows };
  rows.length = limit;
  return { endpoints: rows, nextAfter: rows[limit - 1]!.id };
}
