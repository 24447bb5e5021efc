import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';

/** The tracer of core's spans: a proxy, a no-op without an OpenTelemetry SDK, and the SDK's once one is registered (even later). */
export const tracer = trace.getTracer('@plant-store/core');

/** Runs `fn` with no active span, so work it schedules (timers, callbacks) does not join the caller's trace. */
export function outsideAnyTrace<T>(fn: () => T): T {
  return context.with(ROOT_CONTEXT, fn);
}
