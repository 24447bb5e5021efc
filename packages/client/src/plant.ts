import { idFromJson, type PlantIdInput } from './plant-id.js';

/** A stored plant as the service returns it. `tag` is absent, never `null`, when the plant has none. */
export interface Plant {
  readonly id: bigint;
  readonly name: string;
  readonly tag?: string;
}

/** A plant to create: its id may also be a safe-integer `number`. The service validates it (name 1–256 characters, tag 1–64) and names the field it rejects. */
export interface NewPlant extends Omit<Plant, 'id'> {
  readonly id: PlantIdInput;
}

/**
 * The plant's text fields, in order, and whether each may be absent: the
 * service's field table as the client reads it (the client cannot import the
 * core; test/client checks that the two agree).
 */
export const PLANT_TEXT_FIELDS: Readonly<Record<string, 'required' | 'optional'>> = { name: 'required', tag: 'optional' };

/** A plant from parsed response JSON, or undefined when the value does not have the documented shape. */
export function plantFromJson(value: unknown): Plant | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const id = idFromJson(record['id']);
  if (id === undefined) return undefined;
  const plant: Record<string, unknown> = { id };
  for (const [field, presence] of Object.entries(PLANT_TEXT_FIELDS)) {
    const text = record[field];
    if (typeof text === 'string') plant[field] = text;
    else if (text !== undefined || presence === 'required') return undefined;
  }
  return plant as unknown as Plant;
}
