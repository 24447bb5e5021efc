import type { Plant } from '../domain/plant.js';
import type { Principal } from '../domain/principal.js';
import { ConfigurationError, NotFoundError, withoutStack } from '../errors.js';
import type { PlantEvents } from '../events/plant-events.js';
import type { HostTransactionWrites, SyncHostTransactionWrites } from '../ports/host-transaction-writes.js';
import type { CreatePlantResult } from '../ports/plant-repository.js';
import { plantNotFoundMessage, type CreatePlantOutcome, type PlannedCreate, type PlannedDelete } from './plant-writes.js';

/** Plant writes in the host's transaction: checked, validated and written as `store.plants` does, on the host's executor. */
export interface TransactionPlants {
  /** `store.plants.create` in the host's transaction: the plant and its webhooks commit or roll back with it. */
  create(principal: Principal, input: unknown): Promise<CreatePlantOutcome>;
  /** `create` for a synchronous transaction (better-sqlite3's `db.transaction(fn)`, which cannot await); throws what `create` rejects with. */
  createSync(principal: Principal, input: unknown): CreatePlantOutcome;
  /** `store.plants.delete` in the host's transaction; `NotFoundError` when the tenant has no such plant. */
  delete(principal: Principal, id: unknown): Promise<void>;
  /** `delete` for a synchronous transaction. */
  deleteSync(principal: Principal, id: unknown): void;
}

/**
 * The store joined to a transaction the host opened and will commit or roll back. The host tells it of the commit
 * with `committed()`: only then are the writes' events emitted (and this store's dispatcher woken by them). After a
 * rollback the host drops it: no event is emitted, and no delivery was kept to send.
 */
export interface HostTransaction {
  readonly plants: TransactionPlants;
  /** The host's transaction committed: emits the events of its plant writes, in order. Once; writes after it are refused. */
  committed(): void;
}

/** What the view borrows from the plant service: the same checks, validation and outcomes as its own writes. */
export interface PlantWritePlans {
  planCreate(principal: Principal, input: unknown): PlannedCreate;
  settleCreate(plant: Plant, result: CreatePlantResult): CreatePlantOutcome;
  planDelete(principal: Principal, id: unknown): PlannedDelete;
  emit<K extends keyof PlantEvents>(type: K, event: PlantEvents[K]): void;
}

type PendingEvent = { [K in keyof PlantEvents]: { readonly type: K; readonly event: PlantEvents[K] } }[keyof PlantEvents];

export class HostTransactionView implements HostTransaction, TransactionPlants {
  readonly #writes: HostTransactionWrites;
  readonly #plans: PlantWritePlans;
  #pending: PendingEvent[] | undefined = [];

  constructor(writes: HostTransactionWrites, plans: PlantWritePlans) {
    this.#writes = writes;
    this.#plans = plans;
  }

  get plants(): TransactionPlants {
    return this;
  }

  async create(principal: Principal, input: unknown): Promise<CreatePlantOutcome> {
    const { tenant, plant, deliveries, event } = this.#plan(() => this.#plans.planCreate(principal, input));
    return this.#settleCreate(tenant, plant, await this.#writes.create(tenant, plant, deliveries, event));
  }

  createSync(principal: Principal, input: unknown): CreatePlantOutcome {
    const { tenant, plant, deliveries, event } = this.#plan(() => this.#plans.planCreate(principal, input));
    return this.#settleCreate(tenant, plant, this.#sync().create(tenant, plant, deliveries, event));
  }

  async delete(principal: Principal, id: unknown): Promise<void> {
    const planned = this.#plan(() => this.#plans.planDelete(principal, id));
    this.#settleDelete(planned, await this.#writes.delete(planned.tenant, planned.id, planned.event));
  }

  deleteSync(principal: Principal, id: unknown): void {
    const planned = this.#plan(() => this.#plans.planDelete(principal, id));
    this.#settleDelete(planned, this.#sync().delete(planned.tenant, planned.id, planned.event));
  }

  committed(): void {
    const pending = this.#pending ?? [];
    this.#pending = undefined;
    for (const { type, event } of pending) this.#plans.emit(type, event as never);
  }

  /** Checks and validates first, as the store's own writes do; refuses once committed (its events would never be emitted). */
  #plan<T>(plan: () => T): T {
    if (this.#pending === undefined) {
      throw new ConfigurationError('transaction', 'this transaction was already committed: join the next one with store.inTransaction(executor)');
    }
    return plan();
  }

  #sync(): SyncHostTransactionWrites {
    if (this.#writes.mode === 'sync') return this.#writes;
    throw new ConfigurationError('transaction', 'this executor writes asynchronously: use create or delete (awaited), not their Sync forms');
  }

  #settleCreate(tenant: string, plant: Plant, result: CreatePlantResult): CreatePlantOutcome {
    const outcome = this.#plans.settleCreate(plant, result);
    if (outcome.created) this.#pending?.push({ type: 'plant.created', event: { tenant, plant: outcome.plant } });
    return outcome;
  }

  #settleDelete({ tenant, id }: PlannedDelete, deleted: boolean): void {
    if (!deleted) throw withoutStack(() => new NotFoundError(plantNotFoundMessage(id)));
    this.#pending?.push({ type: 'plant.deleted', event: { tenant, id } });
  }
}
