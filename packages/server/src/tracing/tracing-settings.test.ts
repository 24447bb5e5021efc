import { describe, expect, it } from 'vitest';
import { tracePropagators, tracesProtocol, tracingCaveats, tracingRequested, tracingVariablesNotRead } from './tracing-settings.js';

describe('tracingRequested', () => {
  it('is off unless the standard variables ask for OTLP export', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'plants' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console, OTLP' })).toBe(true);
  });

  it('stays off when the exporter is none or another one, or the SDK is disabled, whatever the endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
  });
});

describe('tracesProtocol', () => {
  it('is http/protobuf unless http/json is asked for, the traces-specific variable winning', () => {
    expect(tracesProtocol({})).toBe('http/protobuf');
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })).toBe('http/protobuf');
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toBe('http/protobuf');
  });
});

describe('tracePropagators', () => {
  it('is W3C trace context and baggage unless OTEL_PROPAGATORS names others; none means none', () => {
    expect(tracePropagators({})).toEqual(['tracecontext', 'baggage']);
    expect(tracePropagators({ OTEL_PROPAGATORS: ' ' })).toEqual(['tracecontext', 'baggage']);
    expect(tracePropagators({ OTEL_PROPAGATORS: 'tracecontext' })).toEqual(['tracecontext']);
    expect(tracePropagators({ OTEL_PROPAGATORS: 'Baggage, b3, tracecontext' })).toEqual(['baggage', 'tracecontext']);
    expect(tracePropagators({ OTEL_PROPAGATORS: 'none' })).toEqual([]);
    expect(tracePropagators({ OTEL_PROPAGATORS: 'tracecontext,none' })).toEqual([]);
    expect(tracePropagators({ OTEL_PROPAGATORS: 'b3' })).toEqual([]);
  });
});

describe('tracingCaveats', () => {
  it('names propagators this service does not have', () => {
    expect(tracingCaveats({ OTEL_PROPAGATORS: 'tracecontext,baggage,none' })).toEqual([]);
    expect(tracingCaveats({ OTEL_PROPAGATORS: 'b3multi, tracecontext, jaeger' })).toEqual([
      'OTEL_PROPAGATORS: only tracecontext and baggage are supported; ignoring b3multi, jaeger',
    ]);
  });

  it('names exporters and protocols this service does not speak', () => {
    expect(tracingCaveats({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual([]);
    expect(tracingCaveats({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toEqual([]);
    expect(tracingCaveats({ OTEL_TRACES_EXPORTER: 'otlp,console', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toEqual([
      'OTEL_TRACES_EXPORTER: only otlp is supported; ignoring console',
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported; traces are sent as OTLP/HTTP with protobuf bodies (http/protobuf)',
    ]);
  });
});

describe('tracingVariablesNotRead', () => {
  it('names the OTEL_* entries of a given environment that the process environment does not hold alike', () => {
    const processEnv = { OTEL_SERVICE_NAME: 'plants', PATH: '/bin' };
    expect(tracingVariablesNotRead(processEnv, processEnv)).toEqual([]);
    expect(tracingVariablesNotRead({ NODE_ENV: 'production', OTEL_SERVICE_NAME: 'plants' }, processEnv)).toEqual([]);
    expect(tracingVariablesNotRead({ OTEL_SERVICE_NAME: 'other', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', PATH: '/usr/bin' }, processEnv)).toEqual(
      ['OTEL_SERVICE_NAME', 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    );
  });
});
