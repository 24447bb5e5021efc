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

/**
 * Spans per export and spans waiting, unless `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`
 * and `OTEL_BSP_MAX_QUEUE_SIZE` say otherwise: eight times the SDK's 512 and
 * 2,048. An export costs the service about 0.15 to 0.35 ms of CPU (and the
 * collector a request) whatever it carries; with every request recorded, a
 * busy instance ends 30,000 to 100,000 spans a second, which at 512 a batch
 * is 60 to 200 exports a second, 1 to 7 % of the service's CPU. A batch of
 * 4,096 of this service's spans is about 1 MB of protobuf, well under what
 * collectors accept in one request (the
 * OpenTelemetry Collector's own batches are 8,192 spans). A quiet service
 * still exports every `OTEL_BSP_SCHEDULE_DELAY`, so spans arrive as soon.
 */
const DEFAULT_MAX_EXPORT_BATCH_SIZE = 4096;
const DEFAULT_MAX_QUEUE_SIZE = 4 * DEFAULT_MAX_EXPORT_BATCH_SIZE;

/** Reads the batching settings from `env` as the OpenTelemetry SDK does, with this service's batch sizes (see above). */
export function batchSettings(env: NodeJS.ProcessEnv): BatchSettings {
  const maxQueueSize = positiveInteger(env, 'OTEL_BSP_MAX_QUEUE_SIZE', DEFAULT_MAX_QUEUE_SIZE);
  return {
    scheduledDelayMs: positiveInteger(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000),
    maxQueueSize,
    maxExportBatchSize: Math.min(positiveInteger(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', DEFAULT_MAX_EXPORT_BATCH_SIZE), maxQueueSize),
    exportTimeoutMs: positiveInteger(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000),
  };
}

/** Reads the tracer's settings from `env` as the OpenTelemetry SDK does; a value that does not parse is reported and the default used. */
export function tracerSettings(env: NodeJS.ProcessEnv): TracerSettings {
  const attributeCountLimit = positiveInteger(env, 'OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', positiveInteger(env, 'OTEL_ATTRIBUTE_COUNT_LIMIT', 128));
  const attributeValueLengthLimit = positiveInteger(
    env,
    'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT',
    positiveInteger(env, 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT', Number.POSITIVE_INFINITY),
  );
  return {
    sampler: samplerFromEnv(env),
    batch: batchSettings(env),
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
