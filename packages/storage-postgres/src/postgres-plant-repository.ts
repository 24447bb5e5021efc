import { StorageError, type Plant } from '@plant-store/core';
import {
  copyPlant,
  INT64_MAX,
  INT64_MIN,
  plantColumns,
  type CreatePlantResult,
  type EndpointEvent,
  type ListPlantsQuery,
  type NewDelivery,
  type PlantOffsetQuery,
  type PlantRepository,
} from '@plant-store/core/adapter';
import { createPlantSql, deletePlantSql, idAtOffsetSql, idAtTaggedOffsetSql, listPlantsSql, listTaggedPlantsSql, selectPlantSql } from './plant-queries.js';
import { prepared, type PreparedStatement, type QueryRunner } from './query-runner.js';
import type { Tables } from './tables.js';

/** A plants row: the plant's columns, NULL for an absent field (see `copyPlant`). */
type PlantRow = Record<string, unknown>;

/** The lowest id a query can return: just above `after`. (`after` = INT64_MAX leaves nothing; callers check first.) */
function lowestId(after: bigint | undefined): bigint {
  return after === undefined ? INT64_MIN : after + 1n;
}

/**
 * Tags to filter on, without repeats (a repeated tag would list its plants
 * twice). PostgreSQL text cannot hold U+0000, so no stored tag contains it:
 * such a tag matches nothing and is dropped rather than sent (the server
 * would reject the whole query). `undefined` when a filter was asked for
 * and nothing can match.
 */
function wantedTags(tags: readonly string[] | undefined): readonly string[] | undefined {
  if (!tags || tags.length === 0) return [];
  const storable = [...new Set(tags)].filter((tag) => !tag.includes('\u0000'));
  return storable.length === 0 ? undefined : storable;
}

/**
 * Plants in PostgreSQL. A create is one statement that writes the plant and
 * its deliveries, so both commit together or not at all; dispatchers are
 * told of the deliveries once it has committed (see `announcer`).
 */
export class PostgresPlantRepository implements PlantRepository {
  readonly #runner: QueryRunner;
  readonly #announce: () => void;
  readonly #sql: {
    readonly [K in 'create' | 'select' | 'delete']: PreparedStatement;
  } & { readonly [K in 'list' | 'listTagged' | 'idAtOffset' | 'idAtTaggedOffset']: string };

  constructor(runner: QueryRunner, tables: Tables, announce: () => void) {
    this.#runner = runner;
    this.#announce = announce;
    // A request's single-row statements are parsed and planned once per connection; listings keep a plan per
    // call, as their ranges and limits vary.
    this.#sql = {
      create: prepared(createPlantSql(tables)),
      select: prepared(selectPlantSql(tables)),
      delete: prepared(deletePlantSql(tables)),
      list: listPlantsSql(tables),
      listTagged: listTaggedPlantsSql(tables),
      idAtOffset: idAtOffsetSql(tables),
      idAtTaggedOffset: idAtTaggedOffsetSql(tables),
    };
  }

  async create(tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent): Promise<CreatePlantResult> {
    // The stored plant is re-read when the id exists. Should it be deleted in
    // between (a concurrent delete), the id is free again: try once more.
    for (let tries = 0; ; tries++) {
      const [row] = await this.#runner.rows<{ created: boolean; queued: boolean }>('create the plant', this.#sql.create, [
        tenant,
        ...deliveryColumns(deliveries),
        ...eventParameters(event),
        deliveries.map((d) => d.traceparent ?? null),
        event?.traceparent ?? null,
        ...plantColumns(plant),
      ]);
      if (row?.queued) this.#announce();
      if (row?.created) return { created: true, plant: copyPlant(plant) };
      const stored = await this.get(tenant, plant.id);
      if (stored || tries >= 2) return stored ? { created: false, plant: stored } : this.#vanished(plant.id);
    }
  }

  async get(tenant: string, id: bigint): Promise<Plant | undefined> {
    const [row] = await this.#runner.rows<PlantRow>('read the plant', this.#sql.select, [tenant, id]);
    return row && copyPlant(row);
  }

  async list(tenant: string, query: ListPlantsQuery): Promise<Plant[]> {
    const tags = wantedTags(query.tags);
    if (query.after === INT64_MAX || query.limit < 1 || !tags) return [];
    const low = lowestId(query.after);
    const high = query.until ?? INT64_MAX;
    const rows =
      tags.length === 0
        ? await this.#runner.rows<PlantRow>('list plants', this.#sql.list, [tenant, low, high, query.limit])
        : await this.#runner.rows<PlantRow>('list plants', this.#sql.listTagged, [tenant, tags, low, high, query.limit]);
    return rows.map(copyPlant);
  }

  async idAtOffset(tenant: string, query: PlantOffsetQuery): Promise<bigint | undefined> {
    const tags = wantedTags(query.tags);
    if (query.after === INT64_MAX || query.offset < 0 || !tags) return undefined;
    const low = lowestId(query.after);
    const action = 'locate a plant listing offset';
    const [row] =
      tags.length === 0
        ? await this.#runner.rows<{ id: bigint }>(action, this.#sql.idAtOffset, [tenant, low, query.offset])
        : await this.#runner.rows<{ id: bigint }>(action, this.#sql.idAtTaggedOffset, [tenant, tags, low, INT64_MAX, query.offset]);
    return row?.id;
  }

  async delete(tenant: string, id: bigint, event?: EndpointEvent): Promise<boolean> {
    const parameters = [tenant, id, ...eventParameters(event), event?.traceparent ?? null];
    const [row] = await this.#runner.rows<{ deleted: boolean; queued: boolean }>('delete the plant', this.#sql.delete, parameters);
    if (row?.queued) this.#announce();
    return row?.deleted === true;
  }

  #vanished(id: bigint): never {
    throw new StorageError(`postgres storage could not create the plant: plant ${id} kept being created and deleted concurrently`);
  }
}

/** The endpoint event's three parameters (type, payload, created-at); a NULL type queues nothing. */
function eventParameters(event: EndpointEvent | undefined): unknown[] {
  return event ? [event.eventType, event.payload, Math.round(event.createdAt)] : [null, null, null];
}

/** The deliveries as six parallel arrays, the parameters `unnest` turns back into rows. */
function deliveryColumns(deliveries: readonly NewDelivery[]): unknown[][] {
  return [
    deliveries.map((d) => d.id),
    deliveries.map((d) => d.tenant),
    deliveries.map((d) => d.endpointId),
    deliveries.map((d) => d.eventType),
    deliveries.map((d) => d.payload),
    deliveries.map((d) => Math.round(d.createdAt)),
  ];
}
