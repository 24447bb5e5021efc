import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import type { Plant } from '@plant-store/core';
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
  type PlantsJson,
} from '@plant-store/core/adapter';
import {
  DELETE_PLANT,
  FAN_OUT,
  idAtOffsetSql,
  INSERT_PLANT,
  listPlantsJsonSql,
  listPlantsSql,
  queryParameters,
  SELECT_PLANT,
  SELECT_PLANT_JSON,
  type FanOutParameters,
  type QueryShape,
} from './plant-queries.js';
import { FAN_OUT_MATCHED, FAN_OUT_TARGETS, fanOutPlan, matchedFanOutParameters } from './filtered-fan-out.js';
import { shapedStatement, type ShapedStatements } from './shaped-statements.js';
import { GroupCommit } from './group-commit.js';
import { isRowError, withSqliteErrors, withSqliteWrite, type GuardedWrites } from './sqlite-error.js';
import type { SqliteWebhookOutbox } from './sqlite-webhook-outbox.js';

/** A plants row as the raw statements return it: the plant's columns in field order (see `copyPlant`). */
type PlantRow = unknown[];

/** A listing page as SQLite builds it: its JSON array, last id and count, and the id just past it (null: no more). */
type PageRow = [json: string, lastId: bigint | null, count: bigint, nextId: bigint | null];

/** The plant statements: prepared once per storage, the listings once per shape. */
interface PlantStatements {
  readonly insert: Statement<unknown[]>;
  /** Raw rows. */
  readonly select: Statement<[tenant: string, id: bigint], PlantRow>;
  readonly selectJson: Statement<[tenant: string, id: bigint], string>;
  readonly delete: Statement<[tenant: string, id: bigint]>;
  readonly fanOut: Statement<FanOutParameters>;
  /** One raw row of two JSON texts: see FAN_OUT_TARGETS. */
  readonly fanOutTargets: Statement<[tenant: string, eventType: string], [filtered: string, parking: string]>;
  readonly fanOutMatched: Statement<unknown[]>;
  /** By shape (`shapeKey`), prepared on first use: raw rows; parameters from `queryParameters`. */
  readonly lists: ShapedStatements<Statement<unknown[], PlantRow>>;
  /** By shape (`shapeKey`), prepared on first use: one raw row [JSON array, last id, count, next id]; parameters from `queryParameters` twice (see listPlantsJsonSql). */
  readonly jsonLists: ShapedStatements<Statement<unknown[], PageRow>>;
  /** By shape (`shapeKey`), prepared on first use: the id alone (plucked); parameters from `queryParameters`. */
  readonly offsets: ShapedStatements<Statement<unknown[], bigint>>;
}

/** One plant delete waiting for its group commit. */
interface PlantDelete {
  readonly tenant: string;
  readonly id: bigint;
  readonly event?: EndpointEvent;
}

/** One plant create waiting for its group commit. */
interface PlantCreate {
  readonly tenant: string;
  readonly plant: Plant;
  readonly deliveries: readonly NewDelivery[];
  readonly event?: EndpointEvent;
}

/**
 * Most creates or deletes in one transaction: about 30 µs each, so a group
 * holds the event loop for a few milliseconds at most. Under load a turn of
 * the loop reads about one request per connection, far fewer.
 */
const MAX_WRITES_PER_COMMIT = 128;

/** A shape's number: one per tag count and range end. */
const shapeKey = (shape: QueryShape) => shape.tagCount * 2 + (shape.bounded ? 1 : 0);

function prepareStatements(db: BetterSqlite3): PlantStatements {
  return {
    insert: db.prepare(INSERT_PLANT),
    select: db.prepare<[string, bigint], PlantRow>(SELECT_PLANT).raw(true),
    selectJson: db.prepare<[string, bigint], string>(SELECT_PLANT_JSON).pluck(true),
    delete: db.prepare(DELETE_PLANT),
    fanOut: db.prepare<FanOutParameters>(FAN_OUT),
    fanOutTargets: db.prepare<[string, string], [string, string]>(FAN_OUT_TARGETS).raw(true),
    fanOutMatched: db.prepare(FAN_OUT_MATCHED),
    lists: new Map(),
    jsonLists: new Map(),
    offsets: new Map(),
  };
}

/**
 * Queues the deliveries of an endpoint event to every endpoint of the tenant subscribed to it (see FAN_OUT), and to those with a filter
 * it matches; then, only when it parked some, the bound on the parked messages of those endpoints, in the same transaction.
 */
function eventQueuer(s: PlantStatements, outbox: SqliteWebhookOutbox): (tenant: string, plantId: bigint, event: EndpointEvent | undefined) => void {
  return (tenant, plantId, event) => {
    if (!event) return;
    const parameters = fanOutParameters(tenant, plantId, event);
    const [filtered, parking] = s.fanOutTargets.get(tenant, event.eventType)!;
    const plan = fanOutPlan(filtered, parking, tenant, event);
    s.fanOut.run(...parameters);
    if (plan.matched) s.fanOutMatched.run(...matchedFanOutParameters(parameters, plan.matched));
    if (plan.parking.length > 0) outbox.boundParked(plan.parking);
  };
}

/** The parameters of FAN_OUT for an event of plant `plantId`. */
export function fanOutParameters(tenant: string, plantId: bigint, event: EndpointEvent): FanOutParameters {
  const { eventType, payload, traceparent = null } = event;
  const at = Math.round(event.createdAt);
  return [String(plantId), tenant, eventType, tenant, eventType, payload, traceparent, at, at, at];
}

/**
 * Writes committed in groups (see group-commit.ts): each group in one
 * guarded IMMEDIATE transaction (`withSqliteWrite`), which checks the files
 * before COMMIT, so a write to files no longer at the path rolls back.
 * IMMEDIATE takes the write lock up front: a concurrent writer makes the
 * group wait (busy_timeout) instead of failing.
 */
function committedInGroups<In, Out>(file: GuardedWrites, action: string, writeOne: (input: In) => Out): GroupCommit<In, Out> {
  return new GroupCommit({
    commit: (inputs) => withSqliteWrite(file, action, () => inputs.map(writeOne)),
    isInputError: isRowError,
    maxGroup: MAX_WRITES_PER_COMMIT,
  });
}

/**
 * One plant create inside its group's transaction, with its deliveries: a
 * failing delivery insert rolls its plant back. The tenant's endpoints are
 * selected inside the same transaction, so an endpoint created or disabled
 * concurrently is wholly in or wholly out.
 */
function plantCreate(s: PlantStatements, outbox: SqliteWebhookOutbox, queueEvent: ReturnType<typeof eventQueuer>): (create: PlantCreate) => CreatePlantResult {
  return ({ tenant, plant, deliveries, event }) => {
    if (s.insert.run(tenant, ...plantColumns(plant)).changes === 0) {
      return { created: false, plant: copyPlant(s.select.get(tenant, plant.id)!) };
    }
    outbox.queue(deliveries);
    queueEvent(tenant, plant.id, event);
    return { created: true, plant: copyPlant(plant) };
  };
}

/** One plant delete inside its group's transaction, with the deliveries of its event. */
function plantDelete(s: PlantStatements, queueEvent: ReturnType<typeof eventQueuer>): (deletion: PlantDelete) => boolean {
  return ({ tenant, id, event }) => {
    if (s.delete.run(tenant, id).changes === 0) return false;
    queueEvent(tenant, id, event);
    return true;
  };
}

/** The lowest id a query can return: just above `after`. (`after` = INT64_MAX leaves nothing; callers check first.) */
function lowestId(after: bigint | undefined): bigint {
  return after === undefined ? INT64_MIN : after + 1n;
}

/**
 * Plants in SQLite. The hot statements are prepared once per storage and run
 * directly on better-sqlite3: compiling a query per call would cost more than
 * running it. Reads use raw rows and safe integers, so ids stay exact bigints.
 * Creates and deletes are committed in groups, one transaction per turn of
 * the event loop (see group-commit.ts).
 */
export class SqlitePlantRepository implements PlantRepository {
  readonly #db: BetterSqlite3;
  readonly #statements: PlantStatements;
  readonly #creates: GroupCommit<PlantCreate, CreatePlantResult>;
  readonly #deletes: GroupCommit<PlantDelete, boolean>;

  constructor(db: BetterSqlite3, outbox: SqliteWebhookOutbox, file: GuardedWrites) {
    this.#db = db;
    const s = (this.#statements = prepareStatements(db));
    const queueEvent = eventQueuer(s, outbox);
    this.#creates = committedInGroups(file, 'create the plant', plantCreate(s, outbox, queueEvent));
    this.#deletes = committedInGroups(file, 'delete the plant', plantDelete(s, queueEvent));
  }

  create(tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent): Promise<CreatePlantResult> {
    // Committed with the other creates of this turn of the event loop (see group-commit.ts).
    return this.#creates.submit(event === undefined ? { tenant, plant, deliveries } : { tenant, plant, deliveries, event });
  }

  /** Commits the creates and deletes still waiting for their group, now: before the database closes. */
  flushWrites(): void {
    this.#creates.flush();
    this.#deletes.flush();
  }

  async get(tenant: string, id: bigint): Promise<Plant | undefined> {
    return withSqliteErrors('read the plant', () => {
      const row = this.#statements.select.get(tenant, id);
      return row && copyPlant(row);
    });
  }

  async getJson(tenant: string, id: bigint): Promise<string | undefined> {
    return withSqliteErrors('read the plant', () => this.#statements.selectJson.get(tenant, id));
  }

  async list(tenant: string, query: ListPlantsQuery): Promise<Plant[]> {
    return withSqliteErrors('list plants', () => {
      if (query.after === INT64_MAX || query.limit < 1) return [];
      const tags = distinct(query.tags);
      const shape = { tagCount: tags.length, bounded: query.until !== undefined };
      const statement = shapedStatement(this.#statements.lists, shapeKey(shape), () => this.#db.prepare<unknown[], PlantRow>(listPlantsSql(shape)).raw(true));
      const parameters = queryParameters(tenant, tags, lowestId(query.after), query.until, query.limit, query.limit);
      return statement.all(...parameters).map(copyPlant);
    });
  }

  async listJson(tenant: string, query: ListPlantsQuery): Promise<PlantsJson> {
    return withSqliteErrors('list plants', () => {
      if (query.after === INT64_MAX || query.limit < 0) return { json: '[]', count: 0, lastId: undefined, more: false };
      const tags = distinct(query.tags);
      const shape = { tagCount: tags.length, bounded: query.until !== undefined };
      const statement = shapedStatement(this.#statements.jsonLists, shapeKey(shape), () =>
        this.#db.prepare<unknown[], PageRow>(listPlantsJsonSql(shape)).raw(true),
      );
      const low = lowestId(query.after);
      // The id just past the page, then the page itself (see listPlantsJsonSql).
      const nextIdParameters = queryParameters(tenant, tags, low, query.until, query.limit + 1, query.limit);
      const pageParameters = queryParameters(tenant, tags, low, query.until, query.limit, query.limit);
      const [json, lastId, count, nextId] = statement.get(...nextIdParameters, ...pageParameters)!;
      return { json, count: Number(count), lastId: lastId ?? undefined, more: nextId !== null };
    });
  }

  async idAtOffset(tenant: string, query: PlantOffsetQuery): Promise<bigint | undefined> {
    return withSqliteErrors('locate a plant listing offset', () => {
      if (query.after === INT64_MAX || query.offset < 0) return undefined;
      const tags = distinct(query.tags);
      const shape = { tagCount: tags.length, bounded: false };
      const statement = shapedStatement(this.#statements.offsets, shapeKey(shape), () => this.#db.prepare<unknown[], bigint>(idAtOffsetSql(shape)).pluck(true));
      const parameters = queryParameters(tenant, tags, lowestId(query.after), undefined, query.offset + 1, query.offset);
      return statement.get(...parameters);
    });
  }

  async delete(tenant: string, id: bigint, event?: EndpointEvent): Promise<boolean> {
    // Deleting what is not there writes nothing: one indexed read answers it,
    // without taking the write lock for a transaction that would change
    // nothing. (A plant created meanwhile is as if created just after.)
    if (withSqliteErrors('delete the plant', () => this.#statements.select.get(tenant, id)) === undefined) return false;
    // With an event, its own transaction checks the files before COMMIT.
    // Committed with the other deletes of this turn of the event loop (see group-commit.ts).
    return this.#deletes.submit(event === undefined ? { tenant, id } : { tenant, id, event });
  }
}

/** Tags without repeats (a repeated tag would list its plants twice in a merged query). */
function distinct(tags: readonly string[] | undefined): readonly string[] {
  if (!tags || tags.length === 0) return [];
  return tags.length === 1 ? tags : [...new Set(tags)];
}
