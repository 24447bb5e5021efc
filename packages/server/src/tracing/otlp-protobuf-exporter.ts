// The OTLP/HTTP exporter for `http/protobuf` (the default), alone so the JSON one is not loaded with it (see tracing-sdk.ts).
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer, TraceExporterMetricsHelper, type IExportTraceServiceResponse, type ISerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { encodeTraceExportRequest } from './otlp-trace-protobuf.js';

const serializer: ISerializer<ReadableSpan[], IExportTraceServiceResponse> = {
  serializeRequest: encodeTraceExportRequest,
  deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
};

/**
 * `@opentelemetry/exporter-trace-otlp-proto`'s exporter, put together from
 * the same parts (the SDK's OTLP/HTTP transport, with its `OTEL_EXPORTER_OTLP_*`
 * settings, retries and compression), with this service's encoder of the
 * request body in place of the SDK's (see `encodeTraceExportRequest`).
 */
export class OTLPTraceExporter extends OTLPExporterBase<ReadableSpan[]> implements SpanExporter {
  constructor() {
    const settings = convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' });
    // The component type is the one the SDK's exporter reports its own metrics under.
    super(createOtlpHttpExportDelegate(settings, serializer, 'otlp_http_span_exporter', TraceExporterMetricsHelper, undefined));
  }
}
