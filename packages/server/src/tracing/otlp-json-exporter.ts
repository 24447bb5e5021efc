// The OTLP/HTTP exporter for `http/json`, alone so the protobuf one is not loaded with it (see tracing-sdk.ts).
export { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
