import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import type { Logger } from '@plant-store/core/adapter';
import { DiagnosticsLog } from './diagnostics-log.js';
import { tracePropagators, tracesProtocol } from './tracing-settings.js';

export interface Tracing {
  /** Exports the spans still buffered (waiting at most `timeoutMs`), then unregisters the tracer. Idempotent. */
  shutdown(timeoutMs: number): Promise<boolean>;
}

/**
 * Starts the OpenTelemetry SDK globally (batched OTLP/HTTP export). The SDK's parts read `OTEL_*` themselves;
 * `OTEL_LOG_LEVEL` and `OTEL_NODE_RESOURCE_DETECTORS` are read here as the Node SDK reads them.
 */
export async function startTracing(serviceVersion: string, problems: Logger): Promise<Tracing> {
  const sdk = await import('./tracing-sdk.js');
  const logLevel = sdk.diagLogLevelFromString(process.env['OTEL_LOG_LEVEL']) ?? DiagLogLevel.INFO;
  diag.setLogger(new DiagnosticsLog(problems), { logLevel, suppressOverrideMessage: true });
  // The SDK hands a failed export to the global error handler, whose default logs the error as JSON.
  sdk.setGlobalErrorHandler((error) => diag.error('an export of spans failed; they are dropped', error));
  // The SDK's defaults, then this service's name and version, then what the detectors find (the environment's wins).
  const resource = sdk
    .defaultResource()
    .merge(sdk.resourceFromAttributes({ 'service.name': 'plant-store', 'service.version': serviceVersion }))
    .merge(sdk.detectResources({ detectors: resourceDetectors(sdk) }));
  const exporter = tracesProtocol(process.env) === 'http/json' ? new sdk.OTLPJsonTraceExporter() : new sdk.OTLPProtobufTraceExporter();
  const provider = new sdk.BasicTracerProvider({ resource, spanProcessors: [new sdk.BatchSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new sdk.AsyncLocalStorageContextManager().enable());
  // With none, the API's own (which reads and writes nothing) stays.
  const propagators = tracePropagators(process.env).map((name) =>
    name === 'tracecontext' ? new sdk.W3CTraceContextPropagator() : new sdk.W3CBaggagePropagator(),
  );
  if (propagators.length > 0) propagation.setGlobalPropagator(new sdk.CompositePropagator({ propagators }));
  let stopping: Promise<boolean> | undefined;
  return {
    shutdown(timeoutMs) {
      stopping ??= shutdownWithin(provider, timeoutMs);
      return stopping;
    },
  };
}

type Sdk = typeof import('./tracing-sdk.js');

function resourceDetectors(sdk: Sdk) {
  const known = new Map([
    ['host', sdk.hostDetector],
    ['os', sdk.osDetector],
    ['serviceinstance', sdk.serviceInstanceIdDetector],
    ['process', sdk.processDetector],
    ['env', sdk.envDetector],
  ]);
  const named = sdk.getStringListFromEnv('OTEL_NODE_RESOURCE_DETECTORS') ?? ['all'];
  if (named.includes('all')) return [...known.values()];
  if (named.includes('none')) return [];
  return named.flatMap((name) => {
    const detector = known.get(name);
    if (detector === undefined) diag.warn(`Invalid resource detector "${name}" specified in the environment variable OTEL_NODE_RESOURCE_DETECTORS`);
    return detector ?? [];
  });
}

/** Unregisters the API's globals whether or not the export finished in time. */
async function shutdownWithin(provider: { shutdown(): Promise<void> }, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolveTimeout) => {
    timer = setTimeout(() => resolveTimeout(false), timeoutMs);
  });
  try {
    const exported = provider.shutdown().then(
      () => true,
      // The last batch failed (the SDK rejects the shutdown with its error): reported as any failed export.
      (error: unknown) => (diag.error('an export of spans failed; they are dropped', error), true),
    );
    return await Promise.race([exported, timedOut]);
  } finally {
    clearTimeout(timer);
    trace.disable();
    context.disable();
    propagation.disable();
    diag.disable();
  }
}
