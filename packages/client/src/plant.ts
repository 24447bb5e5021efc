import { idFromJson, type PlantIdInput } from './plant-id.js';

/** A stored plant as the service returns it. `tag` is absent, never `null`, when the plant has none. */
export interface Plant {
  readonly id: bigint;
  readonly name: string;
  readonly tag?: string;
}

/** A plant to create. The service validates it (name 1–256 characters, tag 1–64) and names the field it rejects. */
export interface NewPlant {
  readonly id: PlantIdInput;
  readonly name: string;
  readonly tag?: string;
}

/** A plant from parsed response JSON, or undefined when the value does not have the documented shape. */
export function plantFromJson(value: unknown): Plant | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, name, tag } = value as Record<string, unknown>;
  const exactId = idFromJson(id);
  if (exactId === undefined || typeof name !== 'string' || (tag !== undefined && typeof tag !== 'string')) return undefined;
  return tag === undefined ? { id: exactId, name } : { id: exactId, name, tag };
}
