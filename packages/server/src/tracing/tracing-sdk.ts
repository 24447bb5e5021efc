// The parts of the OpenTelemetry SDK the service starts, in one module that
// `startTracing` imports only when tracing is on. These packages are
// CommonJS: imported by name here (statically), Node and the CLI bundle both
// find their exports, where a dynamic import of one of them gives the bundle
// only its default export.
export { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
export { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
export { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
