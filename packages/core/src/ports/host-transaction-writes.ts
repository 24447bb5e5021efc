import type { Plant } from '../domain/plant.js';
import type { CreatePlantResult, EndpointEvent } from './plant-repository.js';
import type { NewDelivery } from './webhook-outbox.js';

/**
 * Plant writes on a transaction the host opened and commits (its `pg` client, its kysely `Transaction`): the
 * same writes as `PlantRepository.create` and `delete`, deliveries included, made on the host's executor, so
 * they commit or roll back with the host's own SQL. Dispatchers learn of the deliveries at the host's commit.
 */
export interface AsyncHostTransactionWrites {
  readonly mode: 'async';
  create(tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent): Promise<CreatePlantResult>;
  delete(tenant: string, id: bigint, event?: EndpointEvent): Promise<boolean>;
}

/** The same writes, synchronous: for a driver whose transactions cannot await (better-sqlite3's `db.transaction(fn)`). */
export interface SyncHostTransactionWrites {
  readonly mode: 'sync';
  create(tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent): CreatePlantResult;
  delete(tenant: string, id: bigint, event?: EndpointEvent): boolean;
}

export type HostTransactionWrites = AsyncHostTransactionWrites | SyncHostTransactionWrites;
