// The parts of the OpenTelemetry SDK that tracing takes whatever the tracer (the resource, the W3C propagators),
// in one module that `startTracing` imports only when tracing is on. These packages are CommonJS: imported by
// name here (statically), Node and the CLI bundle both find their exports, where a dynamic import of one of them
// gives the bundle only its default export.
export { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
export { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
