import type { SpanContext } from '@opentelemetry/api';

/**
 * The context of a span whose tracer vouches that both ids are hex digits
 * and valid, never the all-zero ones (the service's own tracer does, for
 * its spans recorded or not), so a log line may carry them as they are
 * (see `traceIdsIn`), without validating or comparing them on every request.
 */
export interface VouchedSpanContext extends SpanContext {
  readonly idsAreHex: true;
}
