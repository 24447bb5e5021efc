// Lean memory baseline: the lean node:http layer over per-tenant sorted
// arrays (binary search on bigint ids, like the memory adapter) and an
// outbox array; bodies are built once per plant and kept.
// Run: node lean-memory-server.js serve --port 0 --tokens t=tenant
import { randomUUID } from 'node:crypto';
import type { LeanStore } from './lean-listener.js';
import { leanServe } from './lean-serve.js';

/** First position whose id is ≥ id (`strict`: > id). */
function bound(items: readonly { readonly id: bigint }[], id: bigint, strict: boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const current = items[middle]!.id;
    if (current < id || (strict && current === id)) low = middle + 1;
    else high = middle;
  }
  return low;
}

interface Stored {
  readonly id: bigint;
  readonly json: string;
}

function leanMemoryStore(webhookUrls: readonly string[]): LeanStore & { close(): void } {
  const tenants = new Map<string, Stored[]>();
  const outbox: { id: string; tenant: string; endpoint: string; payload: string; createdAt: number }[] = [];
  const plantsOf = (tenant: string): Stored[] => {
    let plants = tenants.get(tenant);
    if (!plants) tenants.set(tenant, (plants = []));
    return plants;
  };
  return {
    create(tenant, id, _name, _tag, body) {
      const plants = plantsOf(tenant);
      const key = BigInt(id);
      const index = bound(plants, key, false);
      if (plants[index]?.id === key) return plants[index]!.json;
      plants.splice(index, 0, { id: key, json: body });
      const now = Date.now();
      for (const endpoint of webhookUrls) outbox.push({ id: randomUUID(), tenant, endpoint, payload: body, createdAt: now });
      return undefined;
    },
    get(tenant, id) {
      const plants = plantsOf(tenant);
      const plant = plants[bound(plants, id, false)];
      return plant?.id === id ? plant.json : undefined;
    },
    page(tenant, after, limit) {
      const plants = plantsOf(tenant);
      const start = after === undefined ? 0 : bound(plants, after, true);
      const end = Math.min(plants.length, start + limit);
      let body = '[';
      for (let index = start; index < end; index++) body += (index === start ? '' : ',') + plants[index]!.json;
      return { body: `${body}]`, last: end < plants.length && end > start ? plants[end - 1]!.id : undefined };
    },
    delete(tenant, id) {
      const plants = plantsOf(tenant);
      const index = bound(plants, id, false);
      if (plants[index]?.id !== id) return false;
      plants.splice(index, 1);
      return true;
    },
    close() {},
  };
}

await leanServe('lean-memory baseline', async (flags) => leanMemoryStore(flags.webhookUrls));
