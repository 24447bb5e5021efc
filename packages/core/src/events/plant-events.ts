import mittImport, { type Emitter } from 'mitt';
import type { Plant } from '../domain/plant.js';

// mitt's CommonJS typings make TypeScript (NodeNext) see the default import as the module; Node hands us the function.
const mitt = mittImport as unknown as typeof mittImport.default;

/** What one webhook attempt led to: `delivered`, `retry` (tried again later), `gone` (a 410: no more attempts) or `failed` (no attempt left). */
export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'gone' | 'failed';

/** In-process events, emitted after the storage commit only. */
export type PlantEvents = {
  /** A plant was created (never emitted for a replayed create). */
  'plant.created': { readonly tenant: string; readonly plant: Plant };
  'plant.deleted': { readonly tenant: string; readonly id: bigint };
  /** The dispatcher made a webhook attempt and recorded it (no tenant or url: it feeds metrics). */
  'webhook.attempted': { readonly outcome: WebhookAttemptOutcome; readonly durationMs: number };
  /** Finished deliveries (with their attempts) were deleted by retention or by an operator's prune (metrics). */
  'webhook.pruned': { readonly count: number };
};

export type PlantEventBus = Emitter<PlantEvents>;

/** A new, private event bus (one per store). */
export function createPlantEventBus(): PlantEventBus {
  return mitt<PlantEvents>();
}
