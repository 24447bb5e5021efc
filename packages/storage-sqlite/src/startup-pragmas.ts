import type BetterSqlite3 from 'better-sqlite3';

/** Largest WAL file left on disk after a checkpoint, in bytes. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The pragmas every start sets before migrating, all safe to repeat: WAL,
 * its size cap, durability and foreign keys, and incremental auto-vacuum,
 * first, before anything creates a table: a new file starts with it (an
 * existing one keeps its mode until the storage's VACUUM converts it).
 */
export function setStartupPragmas(db: BetterSqlite3.Database): void {
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  // A checkpoint resets the WAL, but the file keeps its largest size unless
  // truncated: this caps what stays on disk after a burst of writes.
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  // With WAL, NORMAL is durable against process crashes and loses at most the last commits on power loss.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
}
