import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** kysely (its `sql` tag) and a `Kysely` that compiles SQLite queries over the schema without any connection. */
export interface QueryBuilder {
  readonly kysely: Kysely<Database>;
  readonly sql: (typeof import('kysely'))['sql'];
}

let loading: Promise<QueryBuilder> | undefined;

/**
 * kysely builds the operator queries (get, list and requeue of deliveries);
 * they are compiled with it and run on better-sqlite3, like everything else.
 * The request path, the dispatcher and migrations use prepared statements
 * only, and loading kysely's few hundred modules costs about 90 ms, so it is
 * imported on the first operator query: the service never loads it unless an
 * operator asks. Stateless (it only compiles), so one serves every storage.
 */
export function loadQueryBuilder(): Promise<QueryBuilder> {
  loading ??= import('kysely').then((module) => ({
    kysely: new module.Kysely<Database>({
      dialect: {
        createAdapter: () => new module.SqliteAdapter(),
        createDriver: () => new module.DummyDriver(),
        createIntrospector: (db) => new module.SqliteIntrospector(db),
        createQueryCompiler: () => new module.SqliteQueryCompiler(),
      },
    }),
    sql: module.sql,
  }));
  return loading;
}
