import { StorageError, type Plant } from '@plant-store/core';
import { copyPlant, plantColumns, type CreatePlantResult, type EndpointEvent, type NewDelivery } from '@plant-store/core/adapter';
import type { FilterCache } from './filtered-fan-out.js';
import type { ParkedBound } from './parked-deliveries.js';
import type { PreparedStatement } from './query-runner.js';

/** Runs one statement on some executor (the storage's pool, or the host's transaction) and answers its rows. */
export type StatementRows = <Row>(action: string, statement: PreparedStatement, parameters: readonly unknown[]) => Promise<Row[]>;

/** The plant write statements, prepared once per storage. */
export interface PlantWriteStatements {
  readonly create: PreparedStatement;
  readonly select: PreparedStatement;
  readonly delete: PreparedStatement;
  readonly tenantFilters: PreparedStatement;
}

/** Times a write reads its tenant's filters again and retries when they changed under it, before it gives up. */
const FILTER_REFRESHES = 3;

/** What a write's statement answers about its deliveries: whether it queued any, and the endpoints it parked one for (NULL: none). */
interface FannedRow {
  readonly queued: boolean;
  readonly parked: string[] | null;
}

/**
 * A plant create or delete with its deliveries, each one statement run by `rows`: on the storage's pool, or on the
 * host's transaction. `announce` tells dispatchers of queued deliveries; the caller decides when it takes effect. A write that
 * parked deliveries for a disabled endpoint runs the bound of parked messages right after, by `rows` too: a second statement
 * that writes to no disabled endpoint never runs.
 */
export class PostgresPlantWrites {
  readonly #rows: StatementRows;
  readonly #sql: PlantWriteStatements;
  readonly #announce: () => unknown;
  readonly #filters: FilterCache;
  readonly #bound: ParkedBound;

  constructor(rows: StatementRows, sql: PlantWriteStatements, announce: () => unknown, filters: FilterCache, bound: ParkedBound) {
    this.#rows = rows;
    this.#sql = sql;
    this.#announce = announce;
    this.#filters = filters;
    this.#bound = bound;
  }

  async create(tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent): Promise<CreatePlantResult> {
    // The stored plant is re-read when the id exists. Should it be deleted in
    // between (a concurrent delete), the id is free again: try once more.
    for (let tries = 0; ; tries++) {
      const row = await this.#filtered<{ created: boolean } & FannedRow>('create the plant', this.#sql.create, tenant, event, [
        tenant,
        ...deliveryColumns(deliveries),
        ...eventParameters(event),
        deliveries.map((d) => d.traceparent ?? null),
        event?.traceparent ?? null,
        ...plantColumns(plant),
      ]);
      await this.#fannedOut(row);
      if (row?.created) return { created: true, plant: copyPlant(plant) };
      const stored = await this.get(tenant, plant.id);
      if (stored || tries >= 2) return stored ? { created: false, plant: stored } : vanished(plant.id);
    }
  }

  async get(tenant: string, id: bigint): Promise<Plant | undefined> {
    const [row] = await this.#rows<Record<string, unknown>>('read the plant', this.#sql.select, [tenant, id]);
    // A host's executor may parse int8 its own way (pg's default: a string).
    return row && { ...copyPlant(row), id: BigInt(row.id as bigint | string) };
  }

  async delete(tenant: string, id: bigint, event?: EndpointEvent): Promise<boolean> {
    const parameters = [tenant, id, ...eventParameters(event), event?.traceparent ?? null];
    const row = await this.#filtered<{ deleted: boolean } & FannedRow>('delete the plant', this.#sql.delete, tenant, event, parameters);
    await this.#fannedOut(row);
    return row?.deleted === true;
  }

  /** After a write's statement: the bound for the endpoints it parked a delivery for, then the announcement of those it queued. */
  async #fannedOut(row: FannedRow | undefined): Promise<void> {
    if (row?.parked && row.parked.length > 0) {
      await this.#rows('bound the parked deliveries', this.#bound.statement, this.#bound.parameters(row.parked));
    }
    if (row?.queued) await this.#announce();
  }

  /**
   * Runs a write with the filters evaluated appended to its parameters; while it answers `stale` (the filters changed, or an enable's
   * replay raced it: see fanTargets), reads the tenant's filters and runs it again, with a snapshot of its own.
   */
  async #filtered<Row>(action: string, statement: PreparedStatement, tenant: string, event: EndpointEvent | undefined, parameters: unknown[]) {
    for (let refreshes = 0; ; refreshes++) {
      const [row] = await this.#rows<Row & { stale: boolean }>(action, statement, [...parameters, ...this.#filters.parameters(tenant, event)]);
      if (!row?.stale) return row;
      if (refreshes >= FILTER_REFRESHES)
        throw new StorageError(`postgres storage could not ${action}: the tenant's endpoint filters or statuses kept changing`);
      this.#filters.set(tenant, await this.#rows<{ id: string; filter: string }>('read the endpoint filters', this.#sql.tenantFilters, [tenant]));
    }
  }
}

function vanished(id: bigint): never {
  throw new StorageError(`postgres storage could not create the plant: plant ${id} kept being created and deleted concurrently`);
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
