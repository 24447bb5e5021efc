import { diag } from '@opentelemetry/api';
import { samplerFromEnv, type SpanSampler } from './span-sampler.js';

/** How spans are batched for export: the batch span processor's settings. */
export interface BatchSettings {
  /** Milliseconds from the first span of a batch to its export (`OTEL_BSP_SCHEDULE_DELAY`). */
  readonly scheduledDelayMs: number;
  /** Spans that may wait for export; more are dropped (`OTEL_BSP_MAX_QUEUE_SIZE`). */
  readonly maxQueueSize: number;
  /** Spans per export request (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, at most the queue size). */
  readonly maxExportBatchSize: number;
  /** Milliseconds an export may take before the next batch goes anyway (`OTEL_BSP_EXPORT_TIMEOUT`). */
  readonly exportTimeoutMs: number;
}

/** What one span may hold; beyond it, attributes, events and links are dropped (and counted) and values cut. */
export interface SpanLimits {
  readonly attributeCountLimit: number;
  readonly attributeValueLengthLimit: number;
  readonly eventCountLimit: number;
  readonly linkCountLimit: number;
}

/** The tracer's settings, from the standard `OTEL_*` variables, with the specification's defaults. */
export interface TracerSettings {
  readonly sampler: SpanSampler;
  readonly batch: BatchSettings;
  readonly limits: SpanLimits;
}

/** Reads the tracer's settings from `env` as the OpenTelemetry SDK does; a value that does not parse is reported and the default used. */
export function tracerSettings(env: NodeJS.ProcessEnv): TracerSettings {
  const maxQueueSize = positiveInteger(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048);
  const attributeCountLimit = positiveInteger(env, 'OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', positiveInteger(env, 'OTEL_ATTRIBUTE_COUNT_LIMIT', 128));
  const attributeValueLengthLimit = positiveInteger(
    env,
    'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT',
    positiveInteger(env, 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT', Number.POSITIVE_INFINITY),
  );
  return {
    sampler: samplerFromEnv(env),
    batch: {
      scheduledDelayMs: positiveInteger(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000),
      maxQueueSize,
      maxExportBatchSize: Math.min(positiveInteger(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512), maxQueueSize),
      exportTimeoutMs: positiveInteger(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000),
    },
    limits: {
      attributeCountLimit,
      attributeValueLengthLimit,
      eventCountLimit: positiveInteger(env, 'OTEL_SPAN_EVENT_COUNT_LIMIT', 128),
      linkCountLimit: positiveInteger(env, 'OTEL_SPAN_LINK_COUNT_LIMIT', 128),
    },
  };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (Number.isInteger(value) && value > 0) return value;
  diag.warn(`${name}=${raw} is not a positive integer; using ${fallback}.`);
  return fallback;
}
