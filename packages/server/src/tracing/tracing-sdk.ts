// The OpenTelemetry SDK, in one module that `startTracing` imports only when tracing is on. These packages are
// CommonJS: imported by name here (statically), Node and the CLI bundle both find their exports, where a dynamic
// import of one of them gives the bundle only its default export.
export { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
export {
  CompositePropagator,
  diagLogLevelFromString,
  getStringListFromEnv,
  setGlobalErrorHandler,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
export { OTLPTraceExporter as OTLPJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
export { OTLPTraceExporter as OTLPProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
export {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  osDetector,
  processDetector,
  resourceFromAttributes,
  serviceInstanceIdDetector,
} from '@opentelemetry/resources';
export { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
