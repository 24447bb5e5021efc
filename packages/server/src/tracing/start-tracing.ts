import { context, diag, DiagLogLevel, propagation, trace, type TracerProvider } from '@opentelemetry/api';
import type { Logger } from '@plant-store/core/adapter';
import { DiagnosticsLog } from './diagnostics-log.js';
import type { Resource } from './otlp-trace-protobuf.js';
import { SynchronousContextManager } from './synchronous-context-manager.js';
import { tracePropagators, tracingCaveats, type TracesProtocol } from './tracing-settings.js';

/** The tracing of a running service. */
export interface Tracing {
  /** Exports the spans still buffered (waiting at most `timeoutMs`), then unregisters the tracer. Idempotent. */
  shutdown(timeoutMs: number): Promise<boolean>;
}

/** A started tracer provider: what `startTracing` registers and shuts down. */
type StartedProvider = TracerProvider & { shutdown(): Promise<void> };

/**
 * Starts tracing and registers it globally (tracer provider, a synchronous
 * context manager, the propagators `OTEL_PROPAGATORS` names, by default W3C
 * trace context and baggage): spans are batched and sent over OTLP/HTTP,
 * in `protocol`'s encoding, to the endpoint the standard `OTEL_*` variables
 * name (endpoint, headers, timeout, compression, sampler, batch settings,
 * span limits, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`).
 *
 * With `http/protobuf` (the default) the tracer is the service's own
 * (`LightTracerProvider`), which encodes each span as it ends, with its
 * settings from `env`; with `http/json`, the SDK's tracer and JSON exporter.
 * Both take the SDK's resource and OTLP/HTTP transport, which read the
 * process environment themselves. Loaded only when asked (see
 * `tracingRequested`): these modules add to start-up what a service
 * without tracing should not pay.
 *
 * OpenTelemetry's own problems (a variable that does not parse, a failed
 * export, dropped spans) are warnings of `problems` from the start (see
 * DiagnosticsLog), as is what `env` asks for that this service does not do
 * (see `tracingCaveats`).
 */
export async function startTracing(serviceVersion: string, protocol: TracesProtocol, env: NodeJS.ProcessEnv, problems: Logger): Promise<Tracing> {
  diag.setLogger(new DiagnosticsLog(problems), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  for (const caveat of tracingCaveats(env)) problems.warn(`tracing: ${caveat}`);
  const sdk = await import('./tracing-sdk.js');
  // The SDK's defaults, then this service's name and version, then what the environment says (it wins).
  const resource = sdk
    .defaultResource()
    .merge(sdk.resourceFromAttributes({ 'service.name': 'plant-store', 'service.version': serviceVersion }))
    .merge(sdk.detectResources({ detectors: [sdk.envDetector] }));
  const provider = protocol === 'http/json' ? await sdkProvider(resource, env) : await lightProvider(resource, env);
  trace.setGlobalTracerProvider(provider);
  // Not the SDK's default AsyncLocalStorage manager: the service hands its trace context on explicitly (see SynchronousContextManager).
  context.setGlobalContextManager(new SynchronousContextManager());
  // OTEL_PROPAGATORS' choice; with none, the API's own (which reads and writes nothing) stays.
  const propagators = tracePropagators(env).map((name) => (name === 'tracecontext' ? new sdk.W3CTraceContextPropagator() : new sdk.W3CBaggagePropagator()));
  if (propagators.length > 0) propagation.setGlobalPropagator(new sdk.CompositePropagator({ propagators }));
  let stopping: Promise<boolean> | undefined;
  return {
    shutdown(timeoutMs) {
      stopping ??= shutdownWithin(provider, timeoutMs);
      return stopping;
    },
  };
}

async function lightProvider(resource: Resource, env: NodeJS.ProcessEnv): Promise<StartedProvider> {
  const [{ LightTracerProvider }, { tracerSettings }, { otlpProtobufExport }] = await Promise.all([
    import('./tracer/light-tracer-provider.js'),
    import('./tracer/tracer-settings.js'),
    import('./otlp-protobuf-exporter.js'),
  ]);
  return new LightTracerProvider(resource, tracerSettings(env), otlpProtobufExport());
}

async function sdkProvider(resource: Resource, env: NodeJS.ProcessEnv): Promise<StartedProvider> {
  const [{ BasicTracerProvider, BatchSpanProcessor, OTLPTraceExporter }, { batchSettings }] = await Promise.all([
    import('./sdk-json-tracing.js'),
    import('./tracer/tracer-settings.js'),
  ]);
  // The same batching as the service's own tracer (its batch sizes, not the SDK's; the variables still win).
  const batch = batchSettings(env);
  const processor = new BatchSpanProcessor(new OTLPTraceExporter(), {
    maxExportBatchSize: batch.maxExportBatchSize,
    maxQueueSize: batch.maxQueueSize,
    scheduledDelayMillis: batch.scheduledDelayMs,
    exportTimeoutMillis: batch.exportTimeoutMs,
  });
  return new BasicTracerProvider({ resource, spanProcessors: [processor] });
}

/** Shuts `provider` down (exporting what it buffers), giving up after `timeoutMs`; unregisters the API's globals either way. */
async function shutdownWithin(provider: StartedProvider, timeoutMs: number): Promise<boolean> {
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
    diag.disable();
  }
}
