// Which storage a suite (or a benchmark server) runs on. No vitest in here: bench imports it.

/** The storages that need no database server. */
export type StorageKind = 'memory' | 'sqlite';

/** Beside `StorageKind`: `postgres`, for suites that check `postgresAvailable` first (and the benchmark). */
export type AnyStorageKind = StorageKind | 'postgres';

/** Both storages without a server, for `describe.each(STORAGE_KINDS)`. */
export const STORAGE_KINDS: readonly StorageKind[] = ['memory', 'sqlite'];
