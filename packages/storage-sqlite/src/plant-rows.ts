import type { Plant } from '@plant-store/core';

/** A plants row as the raw statements return it: [id, name, tag]. */
export type PlantRow = [id: bigint, name: string, tag: string | null];

export function toPlant(row: PlantRow): Plant {
  const [id, name, tag] = row;
  return tag === null ? { id, name } : { id, name, tag };
}
