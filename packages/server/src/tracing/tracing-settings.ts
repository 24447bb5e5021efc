/**
 * Whether the standard OpenTelemetry variables ask for trace export:
 * `OTEL_TRACES_EXPORTER` naming `otlp`, or, when it is unset, an OTLP
 * endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`).
 * `OTEL_SDK_DISABLED=true` and `OTEL_TRACES_EXPORTER=none` turn it off.
 * Unlike the SDK's own default (`otlp`), nothing is exported unless asked:
 * a service that was never pointed at a collector loads no SDK at all.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  const exporters = tracesExporters(env);
  if (exporters.length > 0) return exporters.includes('otlp');
  return Boolean(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim() || env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim());
}

/**
 * What the operator asked for that this service does not do, one sentence
 * each (logged as warnings when tracing starts): exporters other than
 * `otlp`, and OTLP protocols other than `http/json`, the one its exporter speaks.
 */
export function tracingCaveats(env: NodeJS.ProcessEnv): string[] {
  const caveats: string[] = [];
  const others = tracesExporters(env).filter((name) => name !== 'otlp' && name !== 'none');
  if (others.length > 0) caveats.push(`OTEL_TRACES_EXPORTER: only otlp is supported; ignoring ${others.join(', ')}`);
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = env[name]?.trim();
    if (protocol && protocol !== 'http/json') caveats.push(`${name}=${protocol} is not supported; traces are sent as OTLP/HTTP with JSON bodies (http/json)`);
  }
  return caveats;
}

function tracesExporters(env: NodeJS.ProcessEnv): string[] {
  return (env['OTEL_TRACES_EXPORTER'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}
