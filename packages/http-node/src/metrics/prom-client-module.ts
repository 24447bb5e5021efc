import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

/** The prom-client module (its CommonJS exports). */
export type PromClientModule = typeof PromClient;

const require = createRequire(import.meta.url);
let loaded: PromClientModule | undefined;

/**
 * prom-client, loaded on first use. Evaluating it takes tens of
 * milliseconds, which a service with metrics on should not spend before it
 * is ready: the listener calls this once start-up is over (and on first
 * use). Required rather than imported: it is CommonJS, and a synchronous
 * load needs no buffering of what happens before it completes.
 */
export function promClient(): PromClientModule {
  loaded ??= require('prom-client') as PromClientModule;
  return loaded;
}

/** Fails now, with a clear message, when prom-client is not installed (without evaluating it). */
export function assertPromClientInstalled(): void {
  try {
    require.resolve('prom-client');
  } catch (error) {
    throw new Error('metrics need the prom-client package, which cannot be found (a broken install?)', { cause: error });
  }
}
