import type BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Migration } from 'kysely';

type Migrations = Readonly<Record<string, () => Promise<Migration>>>;

/**
 * Migrates inside one IMMEDIATE transaction on the same connection: kysely's SQLite lock guards one connection only;
 * the write lock keeps two processes from migrating a new file twice.
 */
export async function migrate(db: BetterSqlite3.Database, migrations: Migrations): Promise<void> {
  const loaded = Object.fromEntries(await Promise.all(Object.entries(migrations).map(async ([name, load]) => [name, await load()] as const)));
  // Not destroyed afterwards: that would close the connection the storage goes on using.
  const kysely = new Kysely<unknown>({ dialect: new SqliteDialect({ database: db }) });
  const migrator = new Migrator({
    db: kysely,
    provider: { getMigrations: async () => loaded },
    disableTransactions: true,
  });
  db.exec('BEGIN IMMEDIATE');
  try {
    const { error } = await migrator.migrateToLatest();
    if (error) throw error;
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
