import { context, propagation, trace } from '@opentelemetry/api';
import { SynchronousContextManager } from './synchronous-context-manager.js';
import type { TracesProtocol } from './tracing-settings.js';

/** The tracing SDK of a running service. */
export interface Tracing {
  /** Exports the spans still buffered (waiting at most `timeoutMs`), then unregisters the SDK. Idempotent. */
  shutdown(timeoutMs: number): Promise<boolean>;
}

/**
 * Starts the OpenTelemetry Node tracing SDK and registers it globally (tracer
 * provider, a synchronous context manager, the W3C trace context and
 * baggage propagators): spans are batched and sent over OTLP/HTTP, in
 * `protocol`'s encoding, to the endpoint the standard `OTEL_*` variables name. The SDK reads those
 * variables from the process environment itself (endpoint, headers, timeout,
 * sampler, batch settings, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`).
 * Loaded only when asked (see `tracingRequested`): its modules add to
 * start-up what a service without tracing should not pay.
 */
export async function startTracing(serviceVersion: string, protocol: TracesProtocol): Promise<Tracing> {
  const [sdk, { OTLPTraceExporter }] = await Promise.all([
    import('./tracing-sdk.js'),
    // Only the exporter of the protocol in use is loaded.
    protocol === 'http/json' ? import('./otlp-json-exporter.js') : import('./otlp-protobuf-exporter.js'),
  ]);
  const { NodeTracerProvider, BatchSpanProcessor } = sdk;
  // The SDK's defaults, then this service's name and version, then what the environment says (it wins).
  const resource = sdk
    .defaultResource()
    .merge(sdk.resourceFromAttributes({ 'service.name': 'plant-store', 'service.version': serviceVersion }))
    .merge(sdk.detectResources({ detectors: [sdk.envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // Not the SDK's default AsyncLocalStorage manager: the service hands its trace context on explicitly (see SynchronousContextManager).
  provider.register({ contextManager: new SynchronousContextManager() });
  let stopping: Promise<boolean> | undefined;
  return {
    shutdown(timeoutMs) {
      stopping ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<false>((resolveTimeout) => {
          timer = setTimeout(() => resolveTimeout(false), timeoutMs);
        });
        try {
          return await Promise.race([provider.shutdown().then(() => true), timedOut]);
        } finally {
          clearTimeout(timer);
          trace.disable();
          context.disable();
          propagation.disable();
        }
      })();
      return stopping;
    },
  };
}
