import type * as PromClient from 'prom-client';
import type { Registry } from 'prom-client';

let registry: Registry | undefined;

/**
 * prom-client's default metrics (CPU, memory, heap, event loop lag, GC,
 * handles, file descriptors) on one private registry for the whole process:
 * they describe the process, not a listener, and each collector set starts
 * its own event-loop and GC observers, so listeners share it.
 */
export function processMetricsRegistry(client: typeof PromClient): Registry {
  if (registry === undefined) {
    registry = new client.Registry();
    client.collectDefaultMetrics({ register: registry });
  }
  return registry;
}
