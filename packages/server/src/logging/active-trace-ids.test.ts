import { INVALID_SPAN_CONTEXT, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type { VouchedSpanContext } from '../tracing/vouched-span-context.js';
import { traceIdsIn } from './active-trace-ids.js';

// A trace id whose first digit is 0, as one in sixteen are: it must not be taken for the all-zero one.
const traceId = '0af7651916cd43dd8448eb211c80319c';
const spanId = 'b7ad6b7169203331';

describe('traceIdsIn', () => {
  it('gives no ids outside a span or for the no-op span of no SDK (or of suppressed tracing)', () => {
    expect(traceIdsIn(ROOT_CONTEXT)).toBeUndefined();
    expect(traceIdsIn(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(INVALID_SPAN_CONTEXT)))).toBeUndefined();
  });

  it('gives a span’s ids, marked hex only when its context vouches for them', () => {
    const plain = trace.wrapSpanContext({ traceId, spanId, traceFlags: TraceFlags.SAMPLED });
    expect(traceIdsIn(trace.setSpan(ROOT_CONTEXT, plain))).toEqual({ traceId, spanId, hex: false });
    const vouched: VouchedSpanContext = { traceId, spanId, traceFlags: TraceFlags.SAMPLED, idsAreHex: true };
    expect(traceIdsIn(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(vouched)))).toEqual({ traceId, spanId, hex: true });
  });
});
