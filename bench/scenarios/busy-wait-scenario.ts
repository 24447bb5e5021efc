import { fileURLToPath } from 'node:url';
import type { BenchContext } from '../lib/bench-context.js';
import type { PairedResult } from '../lib/paired-rounds.js';
import { runOnOffScenario } from './on-off-scenario.js';

/** The preload that makes every response of a service spin first (plain JavaScript: the services run on bare `node`). */
export const BUSY_WAIT_PRELOAD = fileURLToPath(new URL('../lib/busy-wait-preload.mjs', import.meta.url));

/**
 * A reference for the tracing scenario: create and list 20, per storage,
 * the untraced service spinning `--busy-wait-us` microseconds before each
 * response against itself as it is. The spin is all it adds, so the ratio
 * says what that much more CPU per request costs in req/s here, under this
 * load generator; tracing's ratio reads against it. No target: it measures
 * the machine, not the service.
 */
export function runBusyWaitScenario(context: BenchContext, onError: (name: string, error: unknown) => void): Promise<PairedResult[]> {
  const micros = context.options.busyWaitUs;
  return runOnOffScenario(
    context,
    {
      name: 'busy-wait',
      comparison: `the service spinning ${micros} µs before each response against itself as it is`,
      settings: (state) =>
        state === 'on' ? { nodeFlags: ['--import', BUSY_WAIT_PRELOAD], env: { PLANT_STORE_BENCH_BUSY_WAIT_US: String(micros) } } : {},
    },
    onError,
  );
}
