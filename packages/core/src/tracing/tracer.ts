import { trace } from '@opentelemetry/api';

/**
 * The tracer of core's spans. A proxy: without an OpenTelemetry SDK every
 * span it starts is a non-recording no-op, and an SDK registered later
 * (after this module loaded) takes over from then on.
 */
export const tracer = trace.getTracer('@plant-store/core');
