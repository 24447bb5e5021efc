// The OTLP/HTTP export of the service's own tracer (`http/protobuf`, the default), alone so the JSON exporter is not loaded with it.
import { diag } from '@opentelemetry/api';
import { createOtlpNetworkExportDelegate, type IOtlpExportDelegate } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate, createOtlpHttpExporterMetrics } from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer, type IExportTraceServiceResponse, type ISerializer } from '@opentelemetry/otlp-transformer';
import { socketTransport } from './otlp-socket-transport.js';
import { retryingTransport } from './retrying-transport.js';
import type { BatchExport, EncodedBatch } from './tracer/span-batches.js';

// The batch is encoded already (see SpanBatches): the body is sent as it is.
const serializer: ISerializer<EncodedBatch, IExportTraceServiceResponse> = {
  serializeRequest: (batch) => batch.body,
  deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
};

// How the SDK's exporter metrics count a request's items: spans, as its trace exporter counts them.
const spanCount = { name: 'span' as const, countItems: (batch: EncodedBatch) => batch.spanCount };

// The component type is the one the SDK's exporter reports its own metrics under.
const COMPONENT_TYPE = 'otlp_http_span_exporter';

/**
 * Sends encoded batches as `@opentelemetry/exporter-trace-otlp-proto`
 * does: the `OTEL_EXPORTER_OTLP_*` settings (endpoint, headers, timeout,
 * compression), retries with back-off, and a failed export reported
 * through OpenTelemetry's `diag` logger (the batch is then given up, as the
 * SDK's batch processor gives it up). To an `http:` endpoint (a collector
 * beside the service, the usual setup) on a socket of its own (see
 * `socketTransport` for why); to an `https:` one with the SDK's transport,
 * whose TLS settings (`OTEL_EXPORTER_OTLP_CERTIFICATE` and the client's)
 * it keeps.
 */
export function otlpProtobufExport(): BatchExport {
  const settings = convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' });
  const delegate: IOtlpExportDelegate<EncodedBatch> = settings.url.startsWith('http:')
    ? createOtlpNetworkExportDelegate(settings, serializer, createOtlpHttpExporterMetrics(COMPONENT_TYPE, spanCount, settings.url, undefined), retryingTransport(socketTransport(settings)))
    : createOtlpHttpExportDelegate(settings, serializer, COMPONENT_TYPE, spanCount, undefined);
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
