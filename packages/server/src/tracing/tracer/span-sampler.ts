import { diag } from '@opentelemetry/api';
import type { TraceId } from './span-ids.js';

/** What a sampler knows of a span's parent: whether it was sampled, and whether it came from another process. */
export interface SampledParent {
  readonly sampled: boolean;
  readonly isRemote: boolean;
}

/**
 * Decides whether a new span is recorded and exported: the standard
 * samplers, deciding exactly as the SDK's do, but from the trace id's
 * words and the parent's flags, without a context or hex strings to read.
 * The SDK's samplers return no attributes or trace state, so a decision is
 * one boolean.
 */
export type SpanSampler = (parent: SampledParent | undefined, traceId: TraceId) => boolean;

const alwaysOn: SpanSampler = () => true;
const alwaysOff: SpanSampler = () => false;

/** The SDK's `TraceIdRatioBasedSampler`: the 32-bit words of the trace id, XORed, below the ratio's share of 2^32. */
function traceIdRatio(ratio: number): SpanSampler {
  const upperBound = ratio >= 1 ? 0x100000000 : Math.floor(Math.max(0, ratio) * 0xffffffff);
  return (_parent, id) => ((id.w0 ^ id.w1 ^ id.w2 ^ id.w3) >>> 0) < upperBound;
}

/** The SDK's `ParentBasedSampler` with its default delegates: a parent's decision is followed, a root asks `root`. */
function parentBased(root: SpanSampler): SpanSampler {
  return (parent, traceId) => (parent === undefined ? root(parent, traceId) : parent.sampled);
}

/**
 * The sampler `OTEL_TRACES_SAMPLER` names (with `OTEL_TRACES_SAMPLER_ARG` for
 * the ratio samplers); the default, and the fallback for a name it does not
 * know, is `parentbased_always_on`, as in the SDK.
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv): SpanSampler {
  const name = env['OTEL_TRACES_SAMPLER']?.trim().toLowerCase() || 'parentbased_always_on';
  switch (name) {
    case 'always_on':
      return alwaysOn;
    case 'always_off':
      return alwaysOff;
    case 'parentbased_always_on':
      return parentBased(alwaysOn);
    case 'parentbased_always_off':
      return parentBased(alwaysOff);
    case 'traceidratio':
      return traceIdRatio(samplerRatio(env));
    case 'parentbased_traceidratio':
      return parentBased(traceIdRatio(samplerRatio(env)));
    default:
      diag.error(`OTEL_TRACES_SAMPLER value "${name}" invalid, defaulting to "parentbased_always_on".`);
      return parentBased(alwaysOn);
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
