// Raw memory baseline: the same node:http layer as the SQLite baseline over
// per-tenant sorted arrays (binary search on bigint ids, like the memory
// adapter) and an outbox map.
// Run: node raw-memory-server.js serve --port 0 --tokens t=tenant
import { rawServe } from './raw-serve.js';
import { bound } from './sorted-ids.js';
import type { RawDelivery, RawPlant, RawStore } from './raw-store.js';

function rawMemoryStore(): RawStore & { close(): void } {
  const tenants = new Map<string, RawPlant[]>();
  const outbox = new Map<string, RawDelivery & { status: string; nextAttemptAt: number }>();
  return {
    create(tenant, plant, deliveries) {
      let plants = tenants.get(tenant);
      if (!plants) tenants.set(tenant, (plants = []));
      const index = bound(plants, plant.id, false);
      const existing = plants[index];
      if (existing?.id === plant.id) return existing;
      if (index === plants.length) plants.push(plant);
      else plants.splice(index, 0, plant);
      for (const delivery of deliveries) outbox.set(delivery.id, { ...delivery, status: 'pending', nextAttemptAt: delivery.createdAt });
      return undefined;
    },
    get(tenant, id) {
      const plants = tenants.get(tenant);
      if (!plants) return undefined;
      const plant = plants[bound(plants, id, false)];
      return plant?.id === id ? plant : undefined;
    },
    list(tenant, after, tags, limit) {
      const plants = tenants.get(tenant);
      if (!plants) return [];
      const result: RawPlant[] = [];
      for (let index = after === undefined ? 0 : bound(plants, after, true); index < plants.length && result.length < limit; index++) {
        const plant = plants[index]!;
        if (!tags || (plant.tag !== undefined && tags.includes(plant.tag))) result.push(plant);
      }
      return result;
    },
    delete(tenant, id) {
      const plants = tenants.get(tenant);
      if (!plants) return false;
      const index = bound(plants, id, false);
      if (plants[index]?.id !== id) return false;
      plants.splice(index, 1);
      return true;
    },
    close() {},
  };
}

await rawServe('raw-memory baseline', () => rawMemoryStore());
