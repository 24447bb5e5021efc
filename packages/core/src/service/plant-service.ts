import { parseNewPlant, parsePlantId, PLANT_CONTENT_IN_WORDS, plantToJson, samePlant, type Plant } from '../domain/plant.js';
import { parseListPlantsOptions, type ListPlantsInput, type ListPlantsOptions } from '../domain/list-options.js';
import type { Principal, Scope } from '../domain/principal.js';
import { ConflictError, ForbiddenError, NotFoundError, withoutStack } from '../errors.js';
import type { PlantEventBus, PlantEvents } from '../events/plant-events.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import type { HostTransactionWrites } from '../ports/host-transaction-writes.js';
import type { CreatePlantResult, PlantRepository } from '../ports/plant-repository.js';
import { HostTransactionView, type HostTransaction } from './host-transaction.js';
import { plantNotFoundMessage, type CreatePlantOutcome, type PlannedCreate, type PlannedDelete } from './plant-writes.js';
import type { NewDelivery } from '../ports/webhook-outbox.js';
import { newMessageId } from '../webhooks/message-id.js';
import { subscriptionMatches, type WebhookSubscription } from '../webhooks/webhook-subscription.js';
import type { PlantListing, PlantPageJson } from './plant-listing.js';

export interface PlantServiceOptions {
  /** Where the plants (and, in the same transaction, their deliveries) are written. */
  readonly plants: PlantRepository;
  /** Receives `plant.created` and `plant.deleted` after each commit. */
  readonly events: PlantEventBus;
  /** Stamps queued deliveries. @default the system clock */
  readonly clock?: Clock;
  /** Reports failing event listeners. @default a logger that drops everything */
  readonly logger?: Logger;
  /** Who gets a "New Plant" delivery, asked at each create (the set may be replaced); validated (`WebhookSubscriptionSchema`). @default none */
  readonly subscriptions?: () => readonly WebhookSubscription[];
  /** Plants read from storage per batch when streaming. @default 500 */
  readonly batchSize?: number;
}

/**
 * The plant use cases. Every call takes the caller's principal, checks its
 * scope, validates its input with the same schemas for every adapter, and
 * touches only the principal's tenant.
 */
export class PlantService {
  readonly #plants: PlantRepository;
  readonly #events: PlantEventBus;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #subscriptions: () => readonly WebhookSubscription[];
  readonly #batchSize: number;

  constructor(options: PlantServiceOptions) {
    this.#plants = options.plants;
    this.#events = options.events;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#subscriptions = options.subscriptions ?? (() => []);
    this.#batchSize = options.batchSize ?? 500;
  }

  /**
   * Creates a plant and queues its "New Plant" webhooks (operator
   * subscriptions, and the tenant's endpoints subscribed to
   * `plant.created`) in the same transaction. Retry-safe: the same id with the same content returns the
   * stored plant (`created: false`, no event, no webhook); the same id with
   * other content is a `ConflictError`.
   */
  async create(principal: Principal, input: unknown): Promise<CreatePlantOutcome> {
    const { tenant, plant, deliveries, event } = this.#planCreate(principal, input);
    const outcome = this.#settleCreate(plant, await this.#plants.create(tenant, plant, deliveries, event));
    if (outcome.created) this.#emit('plant.created', { tenant, plant: outcome.plant });
    return outcome;
  }

  /** A create checked (scope), validated and ready to write: the plant, the operator subscriptions' deliveries and the endpoint event. */
  #planCreate(principal: Principal, input: unknown): PlannedCreate {
    requireScope(principal, 'plants:write');
    const plant = parseNewPlant(input);
    const payload = plantToJson(plant);
    const createdAt = this.#clock.now();
    const deliveries = this.#deliveriesFor(principal.tenant, payload, createdAt);
    return { tenant: principal.tenant, plant, deliveries, event: { eventType: 'plant.created', payload, createdAt } };
  }

  /** The outcome of a planned create once written: a `ConflictError` for another plant under that id. Its event is the caller's to emit, after the commit. */
  #settleCreate(plant: Plant, result: CreatePlantResult): CreatePlantOutcome {
    if (!result.created) {
      if (!samePlant(result.plant, plant)) {
        throw withoutStack(() => new ConflictError(`a plant with id ${plant.id} already exists with a different ${PLANT_CONTENT_IN_WORDS}`));
      }
      return { plant: result.plant, created: false };
    }
    return { plant: result.plant, created: true };
  }

  /** The plant with that id; `NotFoundError` when the caller's tenant has none. */
  async get(principal: Principal, id: unknown): Promise<Plant> {
    requireScope(principal, 'plants:read');
    const plantId = parsePlantId(id);
    const plant = await this.#plants.get(principal.tenant, plantId);
    if (!plant) throw notFound(plantId);
    return plant;
  }

  /**
   * `get` for callers that send the plant as JSON (the HTTP adapter): its
   * wire form (what `plantToJson` gives), written by storage itself when it
   * can (`getJson`), so no plant object is built for it. `NotFoundError`
   * when the caller's tenant has none.
   */
  async getAsJson(principal: Principal, id: unknown): Promise<string> {
    requireScope(principal, 'plants:read');
    const plantId = parsePlantId(id);
    const plants = this.#plants;
    const json = plants.getJson
      ? await plants.getJson(principal.tenant, plantId)
      : await plants.get(principal.tenant, plantId).then((plant) => plant && plantToJson(plant));
    if (json === undefined) throw notFound(plantId);
    return json;
  }

  /**
   * Lists the caller's plants in ascending id order. Without `limit`, every
   * plant (streamed in batches); with it, one page and, when more remain,
   * `nextAfter` for the next one.
   */
  async list(principal: Principal, options: ListPlantsInput = {}): Promise<PlantListing> {
    requireScope(principal, 'plants:read');
    return this.#list(principal, parseListPlantsOptions(options));
  }

  /**
   * `list` for callers that send the listing as JSON (the HTTP adapter): a
   * page of up to the batch size comes back as its JSON text, written by
   * storage itself when it can (`listJson`), so no plant objects are built
   * for it; any other listing as `list` returns it.
   */
  async listAsJson(principal: Principal, options: ListPlantsInput = {}): Promise<PlantListing | PlantPageJson> {
    requireScope(principal, 'plants:read');
    const parsed = parseListPlantsOptions(options);
    const { limit } = parsed;
    if (this.#plants.listJson === undefined || limit === undefined || limit === 0 || limit > this.#batchSize) {
      return this.#list(principal, parsed);
    }
    const tags = parsed.tags !== undefined && parsed.tags.length > 0 ? parsed.tags : undefined;
    const page = await this.#plants.listJson!(principal.tenant, { after: parsed.after, tags, limit });
    return page.more ? { json: page.json, nextAfter: page.lastId } : { json: page.json };
  }

  async #list(principal: Principal, { limit, after, tags: tagList }: ListPlantsOptions): Promise<PlantListing> {
    const { tenant } = principal;
    // Taken once: the stream's reads come later, from whoever iterates it.
    const repository = this.#plants;
    const tags = tagList !== undefined && tagList.length > 0 ? tagList : undefined;
    if (limit === undefined) return { batches: this.#stream(repository, tenant, after, undefined, tags) };
    if (limit === 0) return pageListing([], undefined);
    if (limit <= this.#batchSize) {
      // Small page: read one extra row to learn whether more remain.
      const plants = await repository.list(tenant, { after, tags, limit: limit + 1 });
      if (plants.length <= limit) return pageListing(plants, undefined);
      plants.length = limit;
      return pageListing(plants, plants[limit - 1]!.id);
    }
    // Large page: find its last id first, then stream up to it, so the page
    // never sits in memory and the Link cursor matches the body exactly.
    const last = await repository.idAtOffset(tenant, { after, tags, offset: limit - 1 });
    if (last === undefined) return { batches: this.#stream(repository, tenant, after, undefined, tags) };
    const more = await repository.list(tenant, { after: last, tags, limit: 1 });
    return {
      nextAfter: more.length > 0 ? last : undefined,
      batches: this.#stream(repository, tenant, after, last, tags),
    };
  }

  /** Deletes the plant and queues `plant.deleted` (`{"id":…}`) to the tenant's endpoints subscribed to it, in the same transaction; `NotFoundError` when the caller's tenant has none. */
  async delete(principal: Principal, id: unknown): Promise<void> {
    if (!(await this.deleteIfExists(principal, id))) throw notFound(parsePlantId(id));
  }

  /**
   * `delete` that answers whether there was such a plant instead of
   * throwing `NotFoundError` for a miss: for callers to whom a miss is an
   * ordinary answer (the HTTP adapter's 404 skips an error object and its
   * trip up the stack).
   */
  async deleteIfExists(principal: Principal, id: unknown): Promise<boolean> {
    const { tenant, id: plantId, event } = this.#planDelete(principal, id);
    if (!(await this.#plants.delete(tenant, plantId, event))) return false;
    this.#emit('plant.deleted', { tenant, id: plantId });
    return true;
  }

  /** A delete checked (scope), its id validated, with its `plant.deleted` endpoint event. */
  #planDelete(principal: Principal, id: unknown): PlannedDelete {
    requireScope(principal, 'plants:write');
    const plantId = parsePlantId(id);
    return { tenant: principal.tenant, id: plantId, event: { eventType: 'plant.deleted', payload: `{"id":${plantId}}`, createdAt: this.#clock.now() } };
  }

  /**
   * The plant writes on a transaction the host owns (`PlantStore.inTransaction` makes it): checked and validated as
   * here, written with the storage's `writes`, their events held until the host says it committed.
   */
  inTransaction(writes: HostTransactionWrites): HostTransaction {
    return new HostTransactionView(writes, {
      planCreate: (principal, input) => this.#planCreate(principal, input),
      settleCreate: (plant, result) => this.#settleCreate(plant, result),
      planDelete: (principal, id) => this.#planDelete(principal, id),
      emit: (type, event) => this.#emit(type, event),
    });
  }

  async *#stream(
    repository: PlantRepository,
    tenant: string,
    from: bigint | undefined,
    until: bigint | undefined,
    tags: readonly string[] | undefined,
  ): AsyncGenerator<Plant[]> {
    let after = from;
    for (;;) {
      const batch = await repository.list(tenant, { after, until, tags, limit: this.#batchSize });
      if (batch.length > 0) yield batch;
      if (batch.length < this.#batchSize) return;
      after = batch[batch.length - 1]!.id;
    }
  }

  /** The operator subscriptions' deliveries (`plant.created` to those that list it); tenants' endpoints are chosen by storage, in the write. */
  #deliveriesFor(tenant: string, payload: string, createdAt: number): NewDelivery[] {
    const deliveries: NewDelivery[] = [];
    const subscriptions = this.#subscriptions();
    if (subscriptions.length === 0) return deliveries;
    for (const subscription of subscriptions) {
      if (!subscriptionMatches(subscription, tenant) || !subscription.eventTypes.includes('plant.created')) continue;
      deliveries.push({ id: newMessageId(), tenant, endpointId: subscription.id, eventType: 'plant.created', payload, createdAt });
    }
    return deliveries;
  }

  /** Emits an event of a committed write. The commit already happened: a failing host listener must not turn it into an error for the caller. */
  #emit<K extends keyof PlantEvents>(type: K, event: PlantEvents[K]): void {
    try {
      this.#events.emit(type, event);
    } catch (error) {
      this.#logger.error('event listener failed', { event: type, error: String(error) });
    }
  }
}

/** Throws `ForbiddenError` unless the principal holds the scope. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) throw withoutStack(() => new ForbiddenError(scope));
}

// Expected outcomes, answered as 404 and 403: no stack trace (see withoutStack).
function notFound(id: bigint): NotFoundError {
  return withoutStack(() => new NotFoundError(plantNotFoundMessage(id)));
}

/** A listing of one page already read: callers may take `page` as it is instead of iterating. */
function pageListing(plants: Plant[], nextAfter: bigint | undefined): PlantListing {
  return { nextAfter, page: plants, batches: new PageBatches(plants) };
}

// A class, not an object literal: a literal with a computed (symbol) key
// takes V8's slow path, about 0.25 µs on every page served.
class PageBatches implements AsyncIterable<Plant[]> {
  readonly #plants: Plant[];
  constructor(plants: Plant[]) {
    this.#plants = plants;
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<Plant[]> {
    if (this.#plants.length > 0) yield this.#plants;
  }
}
