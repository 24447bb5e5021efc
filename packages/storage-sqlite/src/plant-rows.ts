import type { Plant } from '@plant-store/core';

/** A plants row as the raw statements return it: [id, name, tag]. */
export type PlantRow = [id: bigint, name: string, tag: string | null];

export function toPlant(row: PlantRow): Plant {
  const [id, name, tag] = row;
  return tag === null ? { id, name } : { id, name, tag };
}

/**
 * A JSON array of plants in their wire form (as SQLite writes it) without
 * its last plant, and the id of the plant now last. Every plant's JSON
 * starts with `{"id":`, which cannot occur inside a JSON string (its quotes
 * would be escaped), so searching back for it finds where plants begin. The
 * array holds at least one plant; SQLite's text is flat, so each search
 * reads only the last plants.
 */
export function withoutLastPlant(json: string): { json: string; lastId: bigint | undefined } {
  const last = json.lastIndexOf('{"id":');
  if (last === 1) return { json: '[]', lastId: undefined };
  const start = json.lastIndexOf('{"id":', last - 1);
  return { json: `${json.slice(0, last - 1)}]`, lastId: BigInt(json.slice(start + 6, json.indexOf(',', start))) };
}
