import type { Registry } from 'prom-client';
import { promClient } from './prom-client-module.js';

let registry: Registry | undefined;

/**
 * prom-client's default metrics (CPU, memory, heap, event loop lag, GC,
 * handles, file descriptors) on one private registry for the whole process:
 * they describe the process, not a listener, and each collector set starts
 * its own event-loop and GC observers, so listeners share it.
 */
export function processMetricsRegistry(): Registry {
  if (registry === undefined) {
    const client = promClient();
    registry = new client.Registry();
    client.collectDefaultMetrics({ register: registry });
  }
  return registry;
}
