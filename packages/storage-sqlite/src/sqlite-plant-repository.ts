import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import {
  INT64_MAX,
  INT64_MIN,
  type CreatePlantResult,
  type EndpointEvent,
  type ListPlantsQuery,
  type NewDelivery,
  type Plant,
  type PlantOffsetQuery,
  type PlantRepository,
  type PlantsJson,
} from '@plant-store/core';
import { idAtOffsetSql, listPlantsJsonSql, listPlantsSql, queryParameters, type QueryShape } from './plant-queries.js';
import { withSqliteErrors, withSqliteWrite, type GuardedWrites } from './sqlite-error.js';
import type { SqliteWebhookOutbox } from './sqlite-webhook-outbox.js';

/**
 * One delivery of an endpoint event per enabled endpoint of the tenant subscribed to it, in endpoint id order.
 * Named parameters: tenant, eventType, payload, at (created-at and first due time). Ids are `msg_` and the 32 hex
 * digits of a random version 4 UUID, as core's `newMessageId` makes them: SQLite's randomblob with the version and variant bits set. The endpoints and their
 * random bytes are materialized first, so each row's bytes are drawn once however often the id reads them.
 */
const FAN_OUT = `
  WITH targets AS MATERIALIZED (
    SELECT id, lower(hex(randomblob(16))) AS r FROM webhook_endpoints
    WHERE tenant = @tenant AND status = 'enabled' AND EXISTS (SELECT 1 FROM json_each(event_types) WHERE value = @eventType)
  )
  INSERT INTO webhook_deliveries
    (id, tenant, endpoint_id, event_type, payload, traceparent, status, attempt_count, next_attempt_at, created_at, updated_at)
  SELECT 'msg_' || substr(r, 1, 12) || '4' || substr(r, 14, 3)
      || substr('89ab', (instr('0123456789abcdef', substr(r, 17, 1)) - 1) % 4 + 1, 1) || substr(r, 18, 15),
    @tenant, id, @eventType, @payload, @traceparent, 'pending', 0, @at, @at, @at
  FROM targets ORDER BY id`;

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
  readonly #file: GuardedWrites;
  readonly #insert: Statement;
  readonly #select: Statement;
  readonly #delete: Statement;
  readonly #lists = new Map<number, Statement>();
  readonly #jsonLists = new Map<number, Statement>();
  readonly #offsets = new Map<number, Statement>();
  readonly #create: (tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent) => CreatePlantResult;
  readonly #deleteWithEvent: (tenant: string, id: bigint, event: EndpointEvent) => boolean;

  constructor(db: BetterSqlite3, outbox: SqliteWebhookOutbox, file: GuardedWrites) {
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
    // One statement queues the deliveries of all of them (see FAN_OUT).
    const fanOut = db.prepare(FAN_OUT);
    const queueEvent = (tenant: string, event: EndpointEvent | undefined) => {
      if (!event) return;
      const at = Math.round(event.createdAt);
      fanOut.run({ tenant, eventType: event.eventType, payload: event.payload, at, traceparent: event.traceparent ?? null });
    };
    const create = db.transaction((tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent): CreatePlantResult => {
      const stored: Plant = plant.tag === undefined ? { id: plant.id, name: plant.name } : { id: plant.id, name: plant.name, tag: plant.tag };
      if (this.#insert.run(tenant, plant.id, plant.name, plant.tag ?? null).changes === 0) {
        return { created: false, plant: toPlant(this.#select.get(tenant, plant.id) as PlantRow) };
      }
      outbox.queue(deliveries);
      queueEvent(tenant, event);
      // Last, before COMMIT: a write to files no longer at the path rolls back.
      file.assertSameFile('create the plant');
      return { created: true, plant: stored };
    });
    this.#create = create.immediate;
    this.#deleteWithEvent = db.transaction((tenant: string, id: bigint, event: EndpointEvent): boolean => {
      if (this.#delete.run(tenant, id).changes === 0) return false;
      queueEvent(tenant, event);
      file.assertSameFile('delete the plant');
      return true;
    }).immediate;
  }

  async create(tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent): Promise<CreatePlantResult> {
    // Its transaction checks the files itself: a guarded transaction around it would add a savepoint to the hottest write.
    return withSqliteErrors('create the plant', () => this.#create(tenant, plant, deliveries, event));
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
    // With an event, its own transaction checks the files before COMMIT.
    if (event) return withSqliteErrors('delete the plant', () => this.#deleteWithEvent(tenant, id, event));
    return withSqliteWrite(this.#file, 'delete the plant', () => this.#delete.run(tenant, id).changes > 0);
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
