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
    const deliveries = [...given, ...this.#eventDeliveries(tenant, plant.id, event)];
    // Check every delivery before writing anything: all or nothing, like a transaction.
    this.#outbox.assertInsertable(deliveries);
    if (!plants) this.#tenants.set(tenant, (plants = new SortedPlants()));
    const stored = copyPlant(plant);
    plants.insert(stored);
    this.#outbox.insert(deliveries);
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
    const deliveries = this.#eventDeliveries(tenant, id, event);
    this.#outbox.assertInsertable(deliveries);
    plants.remove(id);
    if (plants.size === 0) this.#tenants.delete(tenant);
    this.#outbox.insert(deliveries);
    return true;
  }

  /** One delivery of the event per matching endpoint of the tenant; those ordering per plant get the plant's id as their line. */
  #eventDeliveries(tenant: string, plantId: bigint, event: EndpointEvent | undefined): NewDelivery[] {
    if (!event) return [];
    const { eventType, payload, createdAt, traceparent } = event;
    const traced = traceparent === undefined ? {} : { traceparent };
    return this.#endpoints.matching(tenant, eventType, payload).map(({ id: endpointId, ordering }) => ({
      id: newMessageId(),
      tenant,
      endpointId,
      eventType,
      payload,
      createdAt,
      ...(ordering === 'plant' && { orderingKey: String(plantId) }),
      ...traced,
    }));
  }
}
