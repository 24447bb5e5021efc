/** A plant as both baselines keep it: the id is a bigint, like the service's domain type. */
export interface RawPlant {
  readonly id: bigint;
  readonly name: string;
  readonly tag?: string;
}

/** One outbox row: the same columns the service's outbox stores for a new plant. */
export interface RawDelivery {
  readonly id: string;
  readonly tenant: string;
  readonly endpoint: string;
  readonly eventType: string;
  readonly payload: string;
  readonly createdAt: number;
}

/** A result now (SQLite, memory) or later (PostgreSQL). */
export type MaybePromise<T> = T | Promise<T>;

/**
 * The storage slice a baseline needs. Synchronous for SQLite and memory
 * on purpose: those baselines are the practical limit of Node, with no
 * promise or adapter layer; only the PostgreSQL one, whose driver is
 * asynchronous, returns promises (see settle in raw-listener.ts).
 */
export interface RawStore {
  /** Writes plant and deliveries atomically unless the id exists; then writes nothing and returns the stored plant. */
  create(tenant: string, plant: RawPlant, deliveries: readonly RawDelivery[]): MaybePromise<RawPlant | undefined>;
  get(tenant: string, id: bigint): MaybePromise<RawPlant | undefined>;
  /** Up to `limit` plants with `id > after` (and a tag in `tags` when given), ascending. */
  list(tenant: string, after: bigint | undefined, tags: readonly string[] | undefined, limit: number): MaybePromise<RawPlant[]>;
  delete(tenant: string, id: bigint): MaybePromise<boolean>;
}
