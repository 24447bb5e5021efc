// The OTLP/HTTP exporter for `http/protobuf` (the default), alone so the JSON one is not loaded with it (see tracing-sdk.ts).
export { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
