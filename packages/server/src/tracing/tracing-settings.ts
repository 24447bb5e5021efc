/** Whether the `OTEL_*` variables ask for OTLP trace export; unlike the SDK's default, nothing is exported (nor loaded) unless asked. */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  const exporters = tracesExporters(env);
  if (exporters.length > 0) return exporters.includes('otlp');
  return Boolean(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim() || env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim());
}

export type TracesProtocol = 'http/protobuf' | 'http/json';

/** `http/protobuf` by default and for a protocol not spoken here (`grpc`). */
export function tracesProtocol(env: NodeJS.ProcessEnv): TracesProtocol {
  const asked = askedProtocol(env);
  return asked?.value === 'http/json' ? 'http/json' : 'http/protobuf';
}

const PROPAGATOR_NAMES = ['tracecontext', 'baggage'] as const;
export type PropagatorName = (typeof PROPAGATOR_NAMES)[number];

function isPropagatorName(name: string): name is PropagatorName {
  return (PROPAGATOR_NAMES as readonly string[]).includes(name);
}

/** The propagators `OTEL_PROPAGATORS` names (`none` anywhere means none), without those this service lacks (`b3`, …). */
export function tracePropagators(env: NodeJS.ProcessEnv): PropagatorName[] {
  const names = propagatorNames(env);
  if (names.includes('none')) return [];
  return names.filter(isPropagatorName);
}

/** What the operator asked for that this service does not do (other exporters, protocols, propagators), one warning each. */
export function tracingCaveats(env: NodeJS.ProcessEnv): string[] {
  const caveats: string[] = [];
  const others = tracesExporters(env).filter((name) => name !== 'otlp' && name !== 'none');
  if (others.length > 0) caveats.push(`OTEL_TRACES_EXPORTER: only otlp is supported; ignoring ${others.join(', ')}`);
  const otherPropagators = propagatorNames(env).filter((name) => !isPropagatorName(name) && name !== 'none');
  if (otherPropagators.length > 0)
    caveats.push(`OTEL_PROPAGATORS: only ${PROPAGATOR_NAMES.join(' and ')} are supported; ignoring ${otherPropagators.join(', ')}`);
  const asked = askedProtocol(env);
  if (asked && asked.value !== 'http/protobuf' && asked.value !== 'http/json') {
    caveats.push(`${asked.name}=${asked.value} is not supported; traces are sent as OTLP/HTTP with protobuf bodies (http/protobuf)`);
  }
  return caveats;
}

/** The traces-specific protocol variable wins. */
function askedProtocol(env: NodeJS.ProcessEnv): { name: string; value: string } | undefined {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const value = env[name]?.trim().toLowerCase();
    if (value) return { name, value };
  }
  return undefined;
}

function tracesExporters(env: NodeJS.ProcessEnv): string[] {
  return listed(env['OTEL_TRACES_EXPORTER']);
}

function propagatorNames(env: NodeJS.ProcessEnv): string[] {
  const names = listed(env['OTEL_PROPAGATORS']);
  return names.length > 0 ? names : [...PROPAGATOR_NAMES];
}

function listed(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

/** The `OTEL_*` entries of the environment handed to `serve` that differ from the process's: tracing reads only the latter. */
export function tracingVariablesNotRead(given: NodeJS.ProcessEnv, processEnv: NodeJS.ProcessEnv): string[] {
  return Object.keys(given).filter((name) => name.startsWith('OTEL_') && given[name] !== processEnv[name]);
}
