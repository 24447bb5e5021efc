import type { Plant } from '@plant-store/core';
import {
  copyPlant,
  newMessageId,
  type CreatePlantResult,
  type EndpointEvent,
  type ListPlantsQuery,
  type NewDelivery,
  type PlantOffsetQuery,
  type PlantRepository,
} from '@plant-store/core/adapter';
import { assertOpen, type MemoryLifecycle } from './memory-lifecycle.js';
import type { MemoryWebhookEndpoints } from './memory-webhook-endpoints.js';
import type { MemoryWebhookOutbox } from './memory-webhook-outbox.js';
import { SortedPlants } from './sorted-plants.js';

/**
 * Plants per tenant in process memory. Stored plants are private copies
 * (`copyPlant`: only the plant's fields, absent ones left out) and callers
 * get fresh ones, so nobody can change stored state by mutating an object.
 * A stored plant is copied by spreading it: it holds nothing else.
 */
export class MemoryPlantRepository implements PlantRepository {
  readonly #tenants = new Map<string, SortedPlants>();
  readonly #outbox: MemoryWebhookOutbox;
  readonly #endpoints: MemoryWebhookEndpoints;
  readonly #lifecycle: MemoryLifecycle;

  constructor(outbox: MemoryWebhookOutbox, endpoints: MemoryWebhookEndpoints, lifecycle: MemoryLifecycle) {
    this.#outbox = outbox;
    this.#endpoints = endpoints;
    this.#lifecycle = lifecycle;
  }

  async create(tenant: string, plant: Plant, given: readonly NewDelivery[], event?: EndpointEvent): Promise<CreatePlantResult> {
    assertOpen(this.#lifecycle);
    let plants = this.#tenants.get(tenant);
    const existing = plants?.get(plant.id);
    if (existing) return { created: false, plant: { ...existing } };
    const { queued, parked } = this.#eventDeliveries(tenant, plant.id, event);
    const deliveries = [...given, ...queued];
    // Check every delivery before writing anything: all or nothing, like a transaction.
    this.#outbox.assertInsertable([...deliveries, ...parked]);
    if (!plants) this.#tenants.set(tenant, (plants = new SortedPlants()));
    const stored = copyPlant(plant);
    plants.insert(stored);
    this.#queue(deliveries, parked);
    return { created: true, plant: { ...stored } };
  }

  async get(tenant: string, id: bigint): Promise<Plant | undefined> {
    assertOpen(this.#lifecycle);
    const plant = this.#tenants.get(tenant)?.get(id);
    return plant && { ...plant };
  }

  async list(tenant: string, query: ListPlantsQuery): Promise<Plant[]> {
    assertOpen(this.#lifecycle);
    const plants = this.#tenants.get(tenant);
    if (!plants) return [];
    const start = query.after === undefined ? 0 : plants.upperBound(query.after);
    const end = query.until === undefined ? plants.size : plants.upperBound(query.until);
    const tags = query.tags?.length ? new Set(query.tags) : undefined;
    const result: Plant[] = [];
    for (let index = start; index < end && result.length < query.limit; index++) {
      const plant = plants.at(index)!;
      if (!tags || (plant.tag !== undefined && tags.has(plant.tag))) result.push({ ...plant });
    }
    return result;
  }

  async idAtOffset(tenant: string, query: PlantOffsetQuery): Promise<bigint | undefined> {
    assertOpen(this.#lifecycle);
    const plants = this.#tenants.get(tenant);
    if (!plants || query.offset < 0) return undefined;
    const start = query.after === undefined ? 0 : plants.upperBound(query.after);
    if (!query.tags?.length) return plants.at(start + query.offset)?.id;
    // A tag filter has no positional shortcut: count matches from the cursor.
    const tags = new Set(query.tags);
    let remaining = query.offset;
    for (let index = start; index < plants.size; index++) {
      const tag = plants.at(index)!.tag;
      if (tag !== undefined && tags.has(tag) && remaining-- === 0) return plants.at(index)!.id;
    }
    return undefined;
  }

  async delete(tenant: string, id: bigint, event?: EndpointEvent): Promise<boolean> {
    assertOpen(this.#lifecycle);
    const plants = this.#tenants.get(tenant);
    if (!plants?.get(id)) return false;
    const { queued, parked } = this.#eventDeliveries(tenant, id, event);
    this.#outbox.assertInsertable([...queued, ...parked]);
    plants.remove(id);
    if (plants.size === 0) this.#tenants.delete(tenant);
    this.#queue(queued, parked);
    return true;
  }

  #queue(queued: readonly NewDelivery[], parked: readonly NewDelivery[]): void {
    this.#outbox.insert(queued);
    if (parked.length === 0) return;
    for (const [endpointId, dropped] of this.#outbox.park(parked)) this.#endpoints.addDropped(endpointId, dropped);
  }

  /** One delivery of the event per matching endpoint of the tenant (parked for a disabled one); those ordering per plant get the plant's id as their line. */
  #eventDeliveries(tenant: string, plantId: bigint, event: EndpointEvent | undefined): { queued: NewDelivery[]; parked: NewDelivery[] } {
    const queued: NewDelivery[] = [];
    const parked: NewDelivery[] = [];
    if (!event) return { queued, parked };
    const { eventType, payload, createdAt, traceparent } = event;
    const traced = traceparent === undefined ? {} : { traceparent };
    for (const { id: endpointId, ordering, status } of this.#endpoints.matching(tenant, eventType, payload)) {
      const delivery = {
        id: newMessageId(),
        tenant,
        endpointId,
        eventType,
        payload,
        createdAt,
        ...(ordering === 'plant' && { orderingKey: String(plantId) }),
        ...traced,
      };
      (status === 'enabled' ? queued : parked).push(delivery);
    }
    return { queued, parked };
  }
}
