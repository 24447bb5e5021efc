// The SDK's tracer and its OTLP/HTTP JSON exporter, for `http/json` only: the default `http/protobuf` uses the
// service's own tracer, and loads none of this (see start-tracing.ts). CommonJS packages, imported by name here
// statically (see tracing-sdk.ts).
export { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
export { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
