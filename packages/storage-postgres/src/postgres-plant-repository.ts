import type { Plant } from '@plant-store/core';
import {
  copyPlant,
  INT64_MAX,
  INT64_MIN,
  type CreatePlantResult,
  type EndpointEvent,
  type ListPlantsQuery,
  type NewDelivery,
  type PlantOffsetQuery,
  type PlantRepository,
} from '@plant-store/core/adapter';
import { createPlantSql, deletePlantSql, idAtOffsetSql, idAtTaggedOffsetSql, listPlantsSql, listTaggedPlantsSql, selectPlantSql } from './plant-queries.js';
import { FilterCache, tenantFiltersSql } from './filtered-fan-out.js';
import { prepared, type PreparedStatement, type QueryRunner } from './query-runner.js';
import type { Tables } from './tables.js';
import { PostgresPlantWrites, type StatementRows } from './postgres-plant-writes.js';
import type { ParkedBound } from './parked-deliveries.js';

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
  readonly #writes: PostgresPlantWrites;
  /** Shared by the writes on the pool and on hosts' transactions. */
  readonly #filters = new FilterCache();
  readonly #sql: {
    readonly [K in 'create' | 'select' | 'delete' | 'tenantFilters']: PreparedStatement;
  } & { readonly [K in 'list' | 'listTagged' | 'idAtOffset' | 'idAtTaggedOffset']: string };

  readonly #bound: ParkedBound;

  constructor(runner: QueryRunner, tables: Tables, announce: () => void, bound: ParkedBound) {
    this.#runner = runner;
    this.#bound = bound;
    // A request's single-row statements are parsed and planned once per connection; listings keep a plan per
    // call, as their ranges and limits vary.
    this.#sql = {
      create: prepared(createPlantSql(tables)),
      select: prepared(selectPlantSql(tables)),
      delete: prepared(deletePlantSql(tables)),
      tenantFilters: prepared(tenantFiltersSql(tables)),
      list: listPlantsSql(tables),
      listTagged: listTaggedPlantsSql(tables),
      idAtOffset: idAtOffsetSql(tables),
      idAtTaggedOffset: idAtTaggedOffsetSql(tables),
    };
    const rows: StatementRows = (action, statement, parameters) => runner.rows(action, statement, parameters);
    this.#writes = new PostgresPlantWrites(rows, this.#sql, announce, this.#filters, bound);
  }

  create(tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent): Promise<CreatePlantResult> {
    return this.#writes.create(tenant, plant, deliveries, event);
  }

  get(tenant: string, id: bigint): Promise<Plant | undefined> {
    return this.#writes.get(tenant, id);
  }

  /** The same writes on the host's transaction (`rows` runs there); `announce` is sent in it, so it reaches dispatchers at its commit. */
  writesOn(rows: StatementRows, announce: () => Promise<unknown>): PostgresPlantWrites {
    return new PostgresPlantWrites(rows, this.#sql, announce, this.#filters, this.#bound);
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

  delete(tenant: string, id: bigint, event?: EndpointEvent): Promise<boolean> {
    return this.#writes.delete(tenant, id, event);
  }
}
