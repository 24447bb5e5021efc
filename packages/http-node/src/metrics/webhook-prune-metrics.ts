import type { PlantEvents } from '@plant-store/core';
import type * as PromClient from 'prom-client';
import type { Registry } from 'prom-client';

/** Counts deliveries deleted by retention or an operator's prune in this process; the returned function takes `webhook.pruned` events. */
export function createWebhookPruneMetrics(client: typeof PromClient, register: Registry): (event: PlantEvents['webhook.pruned']) => void {
  const pruned = new client.Counter({
    name: 'plant_store_webhook_deliveries_pruned_total',
    help: "Finished webhook deliveries (with their attempts) deleted by this process: by retention, or by an operator's prune through this store.",
    registers: [register],
  });
  return (event) => pruned.inc(event.count);
}
