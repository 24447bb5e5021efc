import type { Plant } from '../domain/plant.js';
import type { NewDelivery } from './webhook-outbox.js';

/** One batch of a tenant's plants in ascending id order (keyset pagination). */
export interface ListPlantsQuery {
  /** Only plants with `id > after`. @default no lower bound */
  readonly after?: bigint;
  /** Only plants with `id <= until`. @default no upper bound */
  readonly until?: bigint;
  /** When non-empty, only plants whose tag equals one of these (untagged plants never match). */
  readonly tags?: readonly string[];
  /** Maximum number of plants to return; at least 1. */
  readonly limit: number;
}

/** Locates a position in a listing without loading the plants before it. */
export interface PlantOffsetQuery {
  /** Only plants with `id > after`. @default no lower bound */
  readonly after?: bigint;
  /** Same filter as {@link ListPlantsQuery.tags}. */
  readonly tags?: readonly string[];
  /** Zero-based position in ascending id order. */
  readonly offset: number;
}

/** Outcome of {@link PlantRepository.create}. */
export type CreatePlantResult =
  /** The plant and its deliveries were written. */
  | { readonly created: true; readonly plant: Plant }
  /** A plant with that id already existed in the tenant; nothing was written. `plant` is the stored one. */
  | { readonly created: false; readonly plant: Plant };

/**
 * Where plants live. Every member is scoped to one tenant: ids are unique per
 * tenant and no member ever sees another tenant's plants. Members reject with
 * a `StorageError` (driver error as `cause`) only when storage itself fails.
 */
export interface PlantRepository {
  /** Atomically writes the plant and all `deliveries` unless the tenant already has that id; then writes nothing and returns the stored plant. Either everything is written or nothing is. */
  create(tenant: string, plant: Plant, deliveries: readonly NewDelivery[]): Promise<CreatePlantResult>;
  /** The plant with that id, or `undefined` when the tenant has none. */
  get(tenant: string, id: bigint): Promise<Plant | undefined>;
  /** Up to `limit` plants matching the query in ascending id order (signed numeric order); `[]` when none. */
  list(tenant: string, query: ListPlantsQuery): Promise<Plant[]>;
  /** The id at `offset` in the listing the query describes, or `undefined` when fewer plants match. */
  idAtOffset(tenant: string, query: PlantOffsetQuery): Promise<bigint | undefined>;
  /** Deletes the plant; `true` when it existed, `false` otherwise. Idempotent. Its queued deliveries are kept. */
  delete(tenant: string, id: bigint): Promise<boolean>;
}
