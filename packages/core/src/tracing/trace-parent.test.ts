import { INVALID_SPAN_CONTEXT, TraceFlags } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { formatTraceparent, parseTraceparent } from './trace-parent.js';

const traceId = '0af7651916cd43dd8448eb211c80319c';
const spanId = 'b7ad6b7169203331';

describe('traceparent', () => {
  it('writes a valid span context as a W3C traceparent and reads it back as a remote one', () => {
    const written = formatTraceparent({ traceId, spanId, traceFlags: TraceFlags.SAMPLED });
    expect(written).toBe(`00-${traceId}-${spanId}-01`);
    expect(parseTraceparent(written)).toEqual({ traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
    expect(formatTraceparent({ traceId, spanId, traceFlags: TraceFlags.NONE })).toBe(`00-${traceId}-${spanId}-00`);
    // Flags other than the sampled bit (a later version's, say) are kept as two hex digits.
    expect(formatTraceparent({ traceId, spanId, traceFlags: 0x03 })).toBe(`00-${traceId}-${spanId}-03`);
    expect(formatTraceparent({ traceId, spanId, traceFlags: 0xa1 })).toBe(`00-${traceId}-${spanId}-a1`);
  });

  it('writes nothing for the invalid context every span has without an SDK, or for ids of the wrong length', () => {
    expect(formatTraceparent(INVALID_SPAN_CONTEXT)).toBeUndefined();
    expect(formatTraceparent({ traceId: `${traceId}00`, spanId, traceFlags: TraceFlags.SAMPLED })).toBeUndefined();
    expect(formatTraceparent({ traceId, spanId: spanId.slice(1), traceFlags: TraceFlags.SAMPLED })).toBeUndefined();
    expect(formatTraceparent({ traceId: '0'.repeat(32), spanId, traceFlags: TraceFlags.SAMPLED })).toBeUndefined();
    expect(formatTraceparent({ traceId, spanId: '0'.repeat(16), traceFlags: TraceFlags.SAMPLED })).toBeUndefined();
  });

  it('reads nothing back from ids that are not hex: their digits are checked where a traceparent is read', () => {
    const written = formatTraceparent({ traceId: 'z'.repeat(32), spanId: 'not-hex-at-all!!', traceFlags: TraceFlags.SAMPLED });
    expect(parseTraceparent(written)).toBeUndefined();
  });

  it('reads nothing from what is not a traceparent (absent, malformed, all-zero ids, unknown version)', () => {
    for (const value of [
      undefined,
      '',
      'junk',
      `00-${traceId}-${spanId}`,
      `00-${'0'.repeat(32)}-${spanId}-01`,
      `00-${traceId}-${'0'.repeat(16)}-01`,
      `01-${traceId}-${spanId}-01`,
      `00-${traceId.toUpperCase()}-${spanId}-01`,
    ]) {
      expect(parseTraceparent(value)).toBeUndefined();
    }
  });
});
