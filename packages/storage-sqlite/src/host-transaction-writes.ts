import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import { ConfigurationError, type Plant } from '@plant-store/core';
import {
  copyPlant,
  PLANT_FIELD_NAMES,
  PLANT_FIELDS,
  plantColumns,
  type CreatePlantResult,
  type EndpointEvent,
  type HostTransactionWrites,
  type NewDelivery,
} from '@plant-store/core/adapter';
import { FAN_OUT_MATCHED, FAN_OUT_TARGETS, fanOutPlan, matchedFanOutParameters, type FanOutPlan } from './filtered-fan-out.js';
import { boundParked, boundParkedAsync } from './parked-deliveries.js';
import { DELETE_PLANT, FAN_OUT, INSERT_PLANT } from './plant-queries.js';
import { preparedStatements, type PreparedStatements } from './prepared-statements.js';
import { fanOutParameters } from './sqlite-plant-repository.js';
import { withSqliteErrors } from './sqlite-error.js';
import { deliveryInsert } from './sqlite-webhook-outbox.js';

/** The stored plant, its int64 columns as text: a host's connection may read integers as doubles, which cannot hold every id. */
const SELECT_PLANT_EXACT = `SELECT ${PLANT_FIELD_NAMES.map((name) => (PLANT_FIELDS[name].type === 'int64' ? `CAST(${name} AS TEXT) AS ${name}` : name)).join(', ')}
  FROM plants WHERE tenant = ? AND id = ?`;

/** Statements on a host's connection: each run alone (`changes`, the first row, or every row). */
interface Executor<Result> {
  changes(statement: string, parameters: readonly unknown[]): Result extends 'sync' ? number : Promise<number>;
  row(
    statement: string,
    parameters: readonly unknown[],
  ): Result extends 'sync' ? Record<string, unknown> | undefined : Promise<Record<string, unknown> | undefined>;
  rows(statement: string, parameters: readonly unknown[]): Result extends 'sync' ? Record<string, unknown>[] : Promise<Record<string, unknown>[]>;
}

/** The part of a kysely `Transaction` the store uses: raw statements on its connection. */
interface KyselyExecutor {
  readonly isTransaction: boolean;
  executeQuery<Row>(query: CompiledQuery<Row>): Promise<{ rows: Row[]; numAffectedRows?: bigint }>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * Plant writes on a host's transaction: the storage's own statements (plant, operator deliveries, fan-out to the
 * tenant's endpoints), run on a better-sqlite3 `Database` inside its `db.transaction(fn)` (synchronously), or on a
 * kysely `Transaction`. `own` is the storage's connection: a kysely transaction open on it is refused, since the
 * storage's other writes (other requests, the dispatcher) would then run inside the host's transaction.
 */
export function hostTransactionWrites(executor: unknown, own: BetterSqlite3, parkedLimit: number): HostTransactionWrites {
  if (isObject(executor) && typeof executor.executeQuery === 'function' && 'isTransaction' in executor) {
    const kysely = executor as unknown as KyselyExecutor;
    if (!kysely.isTransaction) throw refused('a kysely instance outside a transaction: pass the `trx` of `db.transaction().execute(async (trx) => …)`');
    return asyncWrites(kyselyExecutor(kysely, own), parkedLimit);
  }
  if (isObject(executor) && typeof executor.prepare === 'function' && 'inTransaction' in executor) {
    return syncWrites(databaseExecutor(executor as unknown as BetterSqlite3), parkedLimit);
  }
  throw refused('neither a better-sqlite3 Database nor a kysely Transaction');
}

function refused(given: string): ConfigurationError {
  return new ConfigurationError(
    'executor',
    `sqlite storage writes in a host's transaction on a better-sqlite3 Database inside db.transaction(fn), or on a kysely Transaction; got ${given}`,
  );
}

/** Statements prepared once per host connection, reading integers as bigints per statement (the connection's own default stays the host's). */
const preparedOn = new WeakMap<BetterSqlite3, PreparedStatements>();

function databaseExecutor(db: BetterSqlite3): Executor<'sync'> {
  const statement = (text: string): Statement<unknown[]> => {
    if (!db.inTransaction) throw refused('a Database outside a transaction: call inside the function of db.transaction(fn)');
    let prepared = preparedOn.get(db);
    if (!prepared) preparedOn.set(db, (prepared = preparedStatements(db)));
    return prepared(text).safeIntegers(true);
  };
  return {
    changes: (text, parameters) => statement(text).run(...parameters).changes,
    row: (text, parameters) => statement(text).get(...parameters) as Record<string, unknown> | undefined,
    rows: (text, parameters) => statement(text).all(...parameters) as Record<string, unknown>[],
  };
}

function kyselyExecutor(trx: KyselyExecutor, own: BetterSqlite3): Executor<'async'> {
  const execute = (text: string, parameters: readonly unknown[]) => {
    if (own.inTransaction) {
      throw refused("a kysely Transaction on the storage's own connection: give your kysely a connection of its own to the same file");
    }
    return trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, [...parameters]));
  };
  return {
    changes: async (text, parameters) => Number((await execute(text, parameters)).numAffectedRows ?? 0n),
    row: async (text, parameters) => (await execute(text, parameters)).rows[0],
    rows: async (text, parameters) => (await execute(text, parameters)).rows,
  };
}

/** The stored plant from a row of SELECT_PLANT_EXACT. */
const storedPlant = (row: Record<string, unknown>): Plant => ({ ...copyPlant(row), id: BigInt(row.id as string) });

function syncWrites(on: Executor<'sync'>, parkedLimit: number): HostTransactionWrites {
  return {
    mode: 'sync',
    create: (tenant, plant, deliveries, event) =>
      guarded('create the plant', () => {
        if (on.changes(INSERT_PLANT, [tenant, ...plantColumns(plant)]) === 0) return existing(on.row(SELECT_PLANT_EXACT, [tenant, plant.id]));
        for (const delivery of deliveries) on.changes(...deliveryInsert(delivery, delivery.traceparent ?? null));
        if (event) fanOutOn(on, tenant, plant.id, event, parkedLimit);
        return { created: true, plant: copyPlant(plant) };
      }),
    delete: (tenant, id, event) =>
      guarded('delete the plant', () => {
        if (on.changes(DELETE_PLANT, [tenant, id]) === 0) return false;
        if (event) fanOutOn(on, tenant, id, event, parkedLimit);
        return true;
      }),
  };
}

/**
 * FAN_OUT, then FAN_OUT_MATCHED to the filtered endpoints the event matches, on the host's connection; then, only when they
 * parked some, the bound on the parked messages of those endpoints, in the host's transaction.
 */
function fanOutOn(on: Executor<'sync'>, tenant: string, plantId: bigint, event: EndpointEvent, parkedLimit: number): void {
  const parameters = fanOutParameters(tenant, plantId, event);
  const plan = planOf(on.row(FAN_OUT_TARGETS, [tenant, event.eventType]), tenant, event);
  on.changes(FAN_OUT, parameters);
  if (plan.matched) on.changes(FAN_OUT_MATCHED, matchedFanOutParameters(parameters, plan.matched));
  if (plan.parking.length > 0) boundParked(on.changes, plan.parking, parkedLimit);
}

/** The fan-out plan from FAN_OUT_TARGETS' row as the host's executor answers it (columns by name). */
const planOf = (row: Record<string, unknown> | undefined, tenant: string, event: EndpointEvent): FanOutPlan =>
  fanOutPlan(row!['filtered'] as string, row!['parking'] as string, tenant, event);

/** fanOutOn on a connection whose statements answer promises. */
async function fanOutOnAsync(on: Executor<'async'>, tenant: string, plantId: bigint, event: EndpointEvent, parkedLimit: number): Promise<void> {
  const parameters = fanOutParameters(tenant, plantId, event);
  const plan = planOf(await on.row(FAN_OUT_TARGETS, [tenant, event.eventType]), tenant, event);
  await on.changes(FAN_OUT, parameters);
  if (plan.matched) await on.changes(FAN_OUT_MATCHED, matchedFanOutParameters(parameters, plan.matched));
  if (plan.parking.length > 0) await boundParkedAsync(on.changes, plan.parking, parkedLimit);
}

function asyncWrites(on: Executor<'async'>, parkedLimit: number): HostTransactionWrites {
  return {
    mode: 'async',
    create: (tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent) =>
      withAsyncErrors('create the plant', async (): Promise<CreatePlantResult> => {
        if ((await on.changes(INSERT_PLANT, [tenant, ...plantColumns(plant)])) === 0) return existing(await on.row(SELECT_PLANT_EXACT, [tenant, plant.id]));
        for (const delivery of deliveries) await on.changes(...deliveryInsert(delivery, delivery.traceparent ?? null));
        if (event) await fanOutOnAsync(on, tenant, plant.id, event, parkedLimit);
        return { created: true, plant: copyPlant(plant) };
      }),
    delete: (tenant: string, id: bigint, event?: EndpointEvent) =>
      withAsyncErrors('delete the plant', async () => {
        if ((await on.changes(DELETE_PLANT, [tenant, id])) === 0) return false;
        if (event) await fanOutOnAsync(on, tenant, id, event, parkedLimit);
        return true;
      }),
  };
}

/** The create found the id taken in this transaction's view: the stored plant (a concurrent delete cannot intervene inside one SQLite write transaction). */
function existing(row: Record<string, unknown> | undefined): CreatePlantResult {
  if (!row) throw new Error('the plant that kept the id from being inserted is not there');
  return { created: false, plant: storedPlant(row) };
}

/** `withSqliteErrors`, but a refused executor stays the `ConfigurationError` it is. */
function guarded<T>(action: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    return withSqliteErrors(action, () => {
      throw error;
    });
  }
}

async function withAsyncErrors<T>(action: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    return guarded(action, () => {
      throw error;
    });
  }
}
