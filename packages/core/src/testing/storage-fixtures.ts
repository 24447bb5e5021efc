import type { Plant } from '../domain/plant.js';
import type { NewDelivery } from '../ports/webhook-outbox.js';

/** A plant literal; `tag` omitted (not undefined) when not given, as storage must return it. */
export function plant(id: bigint, name: string, tag?: string): Plant {
  return tag === undefined ? { id, name } : { id, name, tag };
}

/** A queued delivery with sensible defaults; its payload carries an exact int64 to catch lossy storage. */
export function delivery(id: string, overrides: Partial<Omit<NewDelivery, 'id'>> = {}): NewDelivery {
  return {
    id,
    tenant: 't',
    endpointId: 'sub_receiver',
    eventType: 'plant.created',
    payload: '{"id":9223372036854775807,"name":"Ficus ü 🌿"}',
    createdAt: 1_700_000_000_000,
    ...overrides,
  };
}
