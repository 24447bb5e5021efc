import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';

/**
 * The tracer of core's spans. A proxy: without an OpenTelemetry SDK every
 * span it starts is a non-recording no-op, and an SDK registered later
 * (after this module loaded) takes over from then on.
 */
export const tracer = trace.getTracer('@plant-store/core');

/** Runs `fn` with no active span, so work it schedules (timers, callbacks) does not join the caller's trace. */
export function outsideAnyTrace<T>(fn: () => T): T {
  return context.with(ROOT_CONTEXT, fn);
}
