import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import {
  INT64_MAX,
  INT64_MIN,
  newMessageId,
  type CreatePlantResult,
  type EndpointEvent,
  type ListPlantsQuery,
  type NewDelivery,
  type Plant,
  type PlantOffsetQuery,
  type PlantRepository,
  type PlantsJson,
} from '@plant-store/core';
import type { DatabaseFileGuard } from './database-file-guard.js';
import { idAtOffsetSql, listPlantsJsonSql, listPlantsSql, queryParameters, type QueryShape } from './plant-queries.js';
import { withSqliteErrors, withSqliteWrite } from './sqlite-error.js';
import type { SqliteWebhookEndpoints } from './sqlite-webhook-endpoints.js';
import type { SqliteWebhookOutbox } from './sqlite-webhook-outbox.js';

/** A plants row as the raw statements return it: [id, name, tag]. */
type PlantRow = [bigint, string, string | null];

function toPlant(row: PlantRow): Plant {
  const [id, name, tag] = row;
  return tag === null ? { id, name } : { id, name, tag };
}

/** The lowest id a query can return: just above `after`. (`after` = INT64_MAX leaves nothing; callers check first.) */
function lowestId(after: bigint | undefined): bigint {
  return after === undefined ? INT64_MIN : after + 1n;
}

/**
 * Plants in SQLite. The hot statements are prepared once per storage and run
 * directly on better-sqlite3: compiling a query per call would cost more than
 * running it. Reads use raw rows and safe integers, so ids stay exact bigints.
 */
export class SqlitePlantRepository implements PlantRepository {
  readonly #db: BetterSqlite3;
  readonly #file: DatabaseFileGuard;
  readonly #insert: Statement;
  readonly #select: Statement;
  readonly #delete: Statement;
  readonly #lists = new Map<number, Statement>();
  readonly #jsonLists = new Map<number, Statement>();
  readonly #offsets = new Map<number, Statement>();
  readonly #create: (tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent) => CreatePlantResult;
  readonly #deleteWithEvent: (tenant: string, id: bigint, event: EndpointEvent) => boolean;

  constructor(db: BetterSqlite3, outbox: SqliteWebhookOutbox, endpoints: SqliteWebhookEndpoints, file: DatabaseFileGuard) {
    this.#db = db;
    this.#file = file;
    this.#insert = db.prepare('INSERT INTO plants (tenant, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
    this.#select = db.prepare('SELECT id, name, tag FROM plants WHERE tenant = ? AND id = ?').raw(true);
    this.#delete = db.prepare('DELETE FROM plants WHERE tenant = ? AND id = ?');
    // One transaction for the plant and its deliveries: a failing delivery
    // insert rolls the plant back. IMMEDIATE takes the write lock up front,
    // so a concurrent writer makes us wait (busy_timeout) instead of failing.
    // The tenant's endpoints are selected inside the same transaction, so an
    // endpoint created or disabled concurrently is wholly in or wholly out.
    const queueEvent = (tenant: string, event: EndpointEvent | undefined) => {
      if (!event) return;
      const { eventType, payload, createdAt } = event;
      const endpointIds = endpoints.matching(tenant, eventType);
      outbox.queue(endpointIds.map((endpointId) => ({ id: newMessageId(), tenant, endpointId, eventType, payload, createdAt })));
    };
    const create = db.transaction((tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent): CreatePlantResult => {
      const stored: Plant = plant.tag === undefined ? { id: plant.id, name: plant.name } : { id: plant.id, name: plant.name, tag: plant.tag };
      if (this.#insert.run(tenant, plant.id, plant.name, plant.tag ?? null).changes === 0) {
        return { created: false, plant: toPlant(this.#select.get(tenant, plant.id) as PlantRow) };
      }
      outbox.queue(deliveries);
      queueEvent(tenant, event);
      return { created: true, plant: stored };
    });
    this.#create = create.immediate;
    this.#deleteWithEvent = db.transaction((tenant: string, id: bigint, event: EndpointEvent): boolean => {
      if (this.#delete.run(tenant, id).changes === 0) return false;
      queueEvent(tenant, event);
      return true;
    }).immediate;
  }

  async create(tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent): Promise<CreatePlantResult> {
    return withSqliteWrite(this.#file, 'create the plant', () => this.#create(tenant, plant, deliveries, event));
  }

  async get(tenant: string, id: bigint): Promise<Plant | undefined> {
    return withSqliteErrors('read the plant', () => {
      const row = this.#select.get(tenant, id) as PlantRow | undefined;
      return row && toPlant(row);
    });
  }

  async list(tenant: string, query: ListPlantsQuery): Promise<Plant[]> {
    return withSqliteErrors('list plants', () => {
      if (query.after === INT64_MAX || query.limit < 1) return [];
      const tags = distinct(query.tags);
      const shape = { tagCount: tags.length, bounded: query.until !== undefined };
      const statement = cached(this.#lists, shape, () => this.#db.prepare(listPlantsSql(shape)).raw(true));
      const parameters = queryParameters(tenant, tags, lowestId(query.after), query.until, query.limit, query.limit);
      return (statement.all(...parameters) as PlantRow[]).map(toPlant);
    });
  }

  async listJson(tenant: string, query: ListPlantsQuery): Promise<PlantsJson> {
    return withSqliteErrors('list plants', () => {
      if (query.after === INT64_MAX || query.limit < 1) return { json: '[]', count: 0, lastId: undefined };
      const tags = distinct(query.tags);
      const shape = { tagCount: tags.length, bounded: query.until !== undefined };
      const statement = cached(this.#jsonLists, shape, () => this.#db.prepare(listPlantsJsonSql(shape)).raw(true));
      const parameters = queryParameters(tenant, tags, lowestId(query.after), query.until, query.limit, query.limit);
      const [json, lastId, count] = statement.get(...parameters) as [string, bigint | null, bigint];
      return { json, count: Number(count), lastId: lastId ?? undefined };
    });
  }

  async idAtOffset(tenant: string, query: PlantOffsetQuery): Promise<bigint | undefined> {
    return withSqliteErrors('locate a plant listing offset', () => {
      if (query.after === INT64_MAX || query.offset < 0) return undefined;
      const tags = distinct(query.tags);
      const shape = { tagCount: tags.length, bounded: false };
      const statement = cached(this.#offsets, shape, () => this.#db.prepare(idAtOffsetSql(shape)).pluck(true));
      const parameters = queryParameters(tenant, tags, lowestId(query.after), undefined, query.offset + 1, query.offset);
      return statement.get(...parameters) as bigint | undefined;
    });
  }

  async delete(tenant: string, id: bigint, event?: EndpointEvent): Promise<boolean> {
    // Deleting what is not there writes nothing: one indexed read answers it,
    // without taking the write lock for a transaction that would change
    // nothing. (A plant created meanwhile is as if created just after.)
    if (withSqliteErrors('delete the plant', () => this.#select.get(tenant, id)) === undefined) return false;
    return withSqliteWrite(this.#file, 'delete the plant', () =>
      event ? this.#deleteWithEvent(tenant, id, event) : this.#delete.run(tenant, id).changes > 0,
    );
  }
}

/** Tags without repeats (a repeated tag would list its plants twice in a merged query). */
function distinct(tags: readonly string[] | undefined): readonly string[] {
  if (!tags || tags.length === 0) return [];
  return tags.length === 1 ? tags : [...new Set(tags)];
}

/** The statement for one shape, prepared on first use. */
function cached(statements: Map<number, Statement>, shape: QueryShape, prepare: () => Statement): Statement {
  const key = shape.tagCount * 2 + (shape.bounded ? 1 : 0);
  let statement = statements.get(key);
  if (!statement) statements.set(key, (statement = prepare()));
  return statement;
}
