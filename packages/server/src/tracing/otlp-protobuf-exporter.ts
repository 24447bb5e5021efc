// The OTLP/HTTP export of the service's own tracer (`http/protobuf`, the default), alone so the JSON exporter is not loaded with it.
import { diag } from '@opentelemetry/api';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer, type IExportTraceServiceResponse, type ISerializer } from '@opentelemetry/otlp-transformer';
import type { BatchExport, EncodedBatch } from './tracer/span-batches.js';

// The batch is encoded already (see SpanBatches): the body is sent as it is.
const serializer: ISerializer<EncodedBatch, IExportTraceServiceResponse> = {
  serializeRequest: (batch) => batch.body,
  deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
};

// How the SDK's exporter metrics count a request's items: spans, as its trace exporter counts them.
const spanCount = { name: 'span' as const, countItems: (batch: EncodedBatch) => batch.spanCount };

/**
 * Sends encoded batches with the SDK's OTLP/HTTP transport, as
 * `@opentelemetry/exporter-trace-otlp-proto` does: the `OTEL_EXPORTER_OTLP_*`
 * settings (endpoint, headers, timeout, compression), retries with
 * back-off, and a failed export reported through OpenTelemetry's `diag`
 * logger (the batch is then given up, as the SDK's batch processor gives it up).
 */
export function otlpProtobufExport(): BatchExport {
  const settings = convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' });
  // The component type is the one the SDK's exporter reports its own metrics under.
  const delegate = createOtlpHttpExportDelegate(settings, serializer, 'otlp_http_span_exporter', spanCount, undefined);
  return {
    send(batch, done) {
      delegate.export(batch, (result) => {
        if (result.error) diag.error('an export of spans failed; they are dropped', result.error);
        done();
      });
    },
    shutdown: () => delegate.shutdown(),
  };
}
