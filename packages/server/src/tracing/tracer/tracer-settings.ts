import { diag } from '@opentelemetry/api';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace-base';

/** How spans are batched for export: the batch span processor's settings. */
export interface BatchSettings {
  /** Milliseconds from the first span of a batch to its export (`OTEL_BSP_SCHEDULE_DELAY`). */
  readonly scheduledDelayMs: number;
  /** Spans that may wait for export; more are dropped (`OTEL_BSP_MAX_QUEUE_SIZE`). */
  readonly maxQueueSize: number;
  /** Spans per export request (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, at most the queue size). */
  readonly maxExportBatchSize: number;
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
  readonly sampler: Sampler;
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
    },
    limits: {
      attributeCountLimit,
      attributeValueLengthLimit,
      eventCountLimit: positiveInteger(env, 'OTEL_SPAN_EVENT_COUNT_LIMIT', 128),
      linkCountLimit: positiveInteger(env, 'OTEL_SPAN_LINK_COUNT_LIMIT', 128),
    },
  };
}

/**
 * The sampler `OTEL_TRACES_SAMPLER` names (with `OTEL_TRACES_SAMPLER_ARG` for
 * the ratio samplers), built from the SDK's samplers; the default, and the
 * fallback for a name it does not know, is `parentbased_always_on`.
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  const name = env['OTEL_TRACES_SAMPLER']?.trim().toLowerCase() || 'parentbased_always_on';
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(samplerRatio(env));
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(samplerRatio(env)) });
    default:
      diag.error(`OTEL_TRACES_SAMPLER value "${name}" invalid, defaulting to "parentbased_always_on".`);
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** `OTEL_TRACES_SAMPLER_ARG` as a ratio from 0 to 1; 1 when it is unset or out of range, as in the SDK. */
function samplerRatio(env: NodeJS.ProcessEnv): number {
  const raw = env['OTEL_TRACES_SAMPLER_ARG']?.trim();
  const ratio = raw ? Number(raw) : Number.NaN;
  if (Number.isNaN(ratio) || ratio < 0 || ratio > 1) {
    diag.error(`OTEL_TRACES_SAMPLER_ARG=${raw ?? ''} is blank or not a ratio from 0 to 1, defaulting to 1.`);
    return 1;
  }
  return ratio;
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (Number.isInteger(value) && value > 0) return value;
  diag.warn(`${name}=${raw} is not a positive integer; using ${fallback}.`);
  return fallback;
}
