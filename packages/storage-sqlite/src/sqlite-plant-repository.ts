import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import {
  INT64_MAX,
  INT64_MIN,
  type CreatePlantResult,
  type ListPlantsQuery,
  type NewDelivery,
  type Plant,
  type PlantOffsetQuery,
  type PlantRepository,
} from '@plant-store/core';
import { idAtOffsetSql, listPlantsSql, queryParameters } from './plant-queries.js';
import { withSqliteErrors } from './sqlite-error.js';
import type { SqliteWebhookOutbox } from './sqlite-webhook-outbox.js';

/** A plants row as the raw statements return it: [id, name, tag]. */
type PlantRow = [bigint, string, string | null];

function toPlant(row: PlantRow): Plant {
  const [id, name, tag] = row;
  return tag === null ? { id, name } : { id, name, tag };
}

/** The id range [low, high] of a query, or undefined when it is empty (`after` is the largest id). */
function idRange(after: bigint | undefined, until: bigint | undefined): [bigint, bigint] | undefined {
  if (after === INT64_MAX) return undefined;
  return [after === undefined ? INT64_MIN : after + 1n, until ?? INT64_MAX];
}

/**
 * Plants in SQLite. The hot statements are prepared once per storage and run
 * directly on better-sqlite3: compiling a query per call would cost more than
 * running it. Reads use raw rows and safe integers, so ids stay exact bigints.
 */
export class SqlitePlantRepository implements PlantRepository {
  readonly #db: BetterSqlite3;
  readonly #insert: Statement;
  readonly #select: Statement;
  readonly #delete: Statement;
  readonly #lists = new Map<number, Statement>();
  readonly #offsets = new Map<number, Statement>();
  readonly #create: (tenant: string, plant: Plant, deliveries: readonly NewDelivery[]) => CreatePlantResult;

  constructor(db: BetterSqlite3, outbox: SqliteWebhookOutbox) {
    this.#db = db;
    this.#insert = db.prepare('INSERT INTO plants (tenant, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
    this.#select = db.prepare('SELECT id, name, tag FROM plants WHERE tenant = ? AND id = ?').raw(true);
    this.#delete = db.prepare('DELETE FROM plants WHERE tenant = ? AND id = ?');
    // One transaction for the plant and its deliveries: a failing delivery
    // insert rolls the plant back. IMMEDIATE takes the write lock up front,
    // so a concurrent writer makes us wait (busy_timeout) instead of failing.
    const create = db.transaction((tenant: string, plant: Plant, deliveries: readonly NewDelivery[]): CreatePlantResult => {
      const stored: Plant = plant.tag === undefined ? { id: plant.id, name: plant.name } : { id: plant.id, name: plant.name, tag: plant.tag };
      if (this.#insert.run(tenant, plant.id, plant.name, plant.tag ?? null).changes === 0) {
        return { created: false, plant: toPlant(this.#select.get(tenant, plant.id) as PlantRow) };
      }
      outbox.queue(deliveries);
      return { created: true, plant: stored };
    });
    this.#create = create.immediate;
  }

  async create(tenant: string, plant: Plant, deliveries: readonly NewDelivery[]): Promise<CreatePlantResult> {
    return withSqliteErrors('create the plant', () => this.#create(tenant, plant, deliveries));
  }

  async get(tenant: string, id: bigint): Promise<Plant | undefined> {
    return withSqliteErrors('read the plant', () => {
      const row = this.#select.get(tenant, id) as PlantRow | undefined;
      return row && toPlant(row);
    });
  }

  async list(tenant: string, query: ListPlantsQuery): Promise<Plant[]> {
    return withSqliteErrors('list plants', () => {
      const range = idRange(query.after, query.until);
      if (!range || query.limit < 1) return [];
      const tags = distinct(query.tags);
      const statement = cached(this.#lists, tags.length, () => this.#db.prepare(listPlantsSql(tags.length)).raw(true));
      const rows = statement.all(...queryParameters(tenant, tags, range[0], range[1], query.limit, query.limit)) as PlantRow[];
      return rows.map(toPlant);
    });
  }

  async idAtOffset(tenant: string, query: PlantOffsetQuery): Promise<bigint | undefined> {
    return withSqliteErrors('locate a plant listing offset', () => {
      const range = idRange(query.after, undefined);
      if (!range || query.offset < 0) return undefined;
      const tags = distinct(query.tags);
      const statement = cached(this.#offsets, tags.length, () => this.#db.prepare(idAtOffsetSql(tags.length)).pluck(true));
      return statement.get(...queryParameters(tenant, tags, range[0], range[1], query.offset + 1, query.offset)) as
        | bigint
        | undefined;
    });
  }

  async delete(tenant: string, id: bigint): Promise<boolean> {
    return withSqliteErrors('delete the plant', () => this.#delete.run(tenant, id).changes > 0);
  }
}

/** Tags without repeats (a repeated tag would list its plants twice in a merged query). */
function distinct(tags: readonly string[] | undefined): readonly string[] {
  if (!tags || tags.length === 0) return [];
  return tags.length === 1 ? tags : [...new Set(tags)];
}

/** The statement for one shape (number of tag filters), prepared on first use. */
function cached(statements: Map<number, Statement>, shape: number, prepare: () => Statement): Statement {
  let statement = statements.get(shape);
  if (!statement) statements.set(shape, (statement = prepare()));
  return statement;
}
