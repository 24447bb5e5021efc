import type { Plant } from '@plant-store/core';

/** One tenant's plants sorted by id, so a batch after a cursor costs O(log n + limit) however many plants there are. */
export class SortedPlants {
  readonly #plants: Plant[] = [];

  get size(): number {
    return this.#plants.length;
  }

  /** The stored plant with that id, or `undefined`. */
  get(id: bigint): Plant | undefined {
    const index = this.lowerBound(id);
    const plant = this.#plants[index];
    return plant?.id === id ? plant : undefined;
  }

  /** Inserts the plant unless its id is present; returns the plant already stored, if any. */
  insert(plant: Plant): Plant | undefined {
    const index = this.lowerBound(plant.id);
    const existing = this.#plants[index];
    if (existing?.id === plant.id) return existing;
    this.#plants.splice(index, 0, plant);
    return undefined;
  }

  /** Removes the plant with that id; `true` when it was there. */
  remove(id: bigint): boolean {
    const index = this.lowerBound(id);
    if (this.#plants[index]?.id !== id) return false;
    this.#plants.splice(index, 1);
    return true;
  }

  /** The plant at a position (0 = smallest id). */
  at(index: number): Plant | undefined {
    return this.#plants[index];
  }

  /** First position whose id is ≥ `id`. */
  lowerBound(id: bigint): number {
    let low = 0;
    let high = this.#plants.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#plants[middle]!.id < id) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** First position whose id is > `id` (ids are integers). */
  upperBound(id: bigint): number {
    return this.lowerBound(id + 1n);
  }
}
