import type { Plant } from '../domain/plant.js';
import type { WebhookEventType } from '../webhooks/endpoints/webhook-endpoint.js';
import type { NewDelivery } from './webhook-outbox.js';

/**
 * An event for the tenant's own endpoints. The repository queues
 * one delivery (new `msg_` id, this payload and time) for each of the
 * tenant's enabled endpoints whose `eventTypes` include `eventType`, chosen
 * and written in the same transaction as the plant write, so an endpoint
 * created or disabled concurrently is either wholly in or wholly out. To an
 * endpoint with `ordering: 'plant'`, the delivery's `orderingKey` is the
 * plant's id (decimal), so it waits for that plant's earlier messages.
 */
export interface EndpointEvent {
  readonly eventType: WebhookEventType;
  /** Exact request body (JSON text). */
  readonly payload: string;
  /** Epoch ms: the deliveries' `createdAt` and first due time. */
  readonly createdAt: number;
  /** Optional: the deliveries' `traceparent` (see `NewDelivery`). */
  readonly traceparent?: string;
}

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

/** What {@link PlantRepository.listJson} returns: the plants of a listing as JSON text. */
export interface PlantsJson {
  /** The JSON array of the plants' wire form, exactly what serializing each with `plantToJson` and joining them would give. */
  readonly json: string;
  /** How many plants the array holds. */
  readonly count: number;
  /** The id of the last plant in the array; `undefined` when it is empty. */
  readonly lastId: bigint | undefined;
  /** Whether more plants match the query after the last one in the array (the listing was cut at its `limit`). */
  readonly more: boolean;
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
  /** Atomically writes the plant, all `deliveries` and those of `event` to the tenant's matching endpoints, unless the tenant already has that id; then writes nothing and returns the stored plant. Either everything is written or nothing is. */
  create(tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent): Promise<CreatePlantResult>;
  /** The plant with that id, or `undefined` when the tenant has none. */
  get(tenant: string, id: bigint): Promise<Plant | undefined>;
  /** Optional: the plant `get` returns, as its wire JSON text (exactly what `plantToJson` gives) built by the storage itself, or `undefined` when the tenant has none. */
  getJson?(tenant: string, id: bigint): Promise<string | undefined>;
  /** Up to `limit` plants matching the query in ascending id order (signed numeric order); `[]` when none. */
  list(tenant: string, query: ListPlantsQuery): Promise<Plant[]>;
  /** Optional: the plants `list` returns for the same query, as JSON text built by the storage itself (cheaper than building plant objects to serialize them), and whether more match beyond `limit`. */
  listJson?(tenant: string, query: ListPlantsQuery): Promise<PlantsJson>;
  /** The id at `offset` in the listing the query describes, or `undefined` when fewer plants match. */
  idAtOffset(tenant: string, query: PlantOffsetQuery): Promise<bigint | undefined>;
  /** Deletes the plant and, in the same transaction, queues the deliveries of `event` to the tenant's matching endpoints; `true` when it existed, `false` otherwise (nothing queued). Idempotent. Its queued deliveries are kept. */
  delete(tenant: string, id: bigint, event?: EndpointEvent): Promise<boolean>;
}
