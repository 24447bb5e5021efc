import type { Plant } from '../domain/plant.js';
import type { EndpointEvent } from '../ports/plant-repository.js';
import type { NewDelivery } from '../ports/webhook-outbox.js';

// The shapes of a plant write that the service and a host's transaction share.

/** Result of a create: the stored plant, and whether this call created it (false for a replay). */
export interface CreatePlantOutcome {
  readonly plant: Plant;
  readonly created: boolean;
}

/** A create ready to write (see `PlantService.planCreate`). */
export interface PlannedCreate {
  readonly tenant: string;
  readonly plant: Plant;
  readonly deliveries: NewDelivery[];
  readonly event: EndpointEvent;
}

/** A delete ready to write (see `PlantService.planDelete`). */
export interface PlannedDelete {
  readonly tenant: string;
  readonly id: bigint;
  readonly event: EndpointEvent;
}

/** The message of the `NotFoundError` for a plant id, for adapters that answer a miss themselves. */
export function plantNotFoundMessage(id: bigint): string {
  return `plant ${id} not found`;
}
