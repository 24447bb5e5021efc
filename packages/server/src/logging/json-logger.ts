import type { LogFields, Logger } from '@plant-store/core/adapter';
import { pino, type DestinationStream } from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Where log lines go: anything with a `write(string)` (process.stdout, a file stream, a test buffer). */
export interface LogSink {
  write(chunk: string): unknown;
}

export interface JsonLoggerOptions {
  /** @default 'info' */
  readonly level?: LogLevel;
  /** @default Date.now */
  readonly now?: () => number;
  /** The ids of the span active when an entry is written, added to it (over fields of the same names). */
  readonly traceIds?: () => TraceIds | undefined;
}

/** Lowercase hex, as the trace context gives them. */
export interface TraceIds {
  readonly traceId: string;
  readonly spanId: string;
}

// Defence in depth: a credential that slips into a field is masked, by name at any depth (pino's `redact` takes fixed paths).
const SENSITIVE_KEY = /token|secret|authorization|password|passwd|cookie|api[-_]?key|credential/i;
const REDACTED = '[redacted]';
const RESERVED = new Set(['time', 'level', 'msg']);
const NO_FIELDS: LogFields = Object.freeze({});

/**
 * A core `Logger` on pino, one JSON object per line: bigints as decimal strings, errors as `{name, message, stack, cause}`,
 * cycles as `"[Circular]"`, credential-like fields redacted, envelope names kept as `field.<name>`. Never throws.
 */
export function jsonLogger(sink: LogSink, options: JsonLoggerOptions = {}): Logger {
  const now = options.now ?? Date.now;
  const traceIds = options.traceIds;
  const log = pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      messageKey: 'msg',
      timestamp: () => `,"time":"${new Date(now()).toISOString()}"`,
      formatters: { level: (label) => ({ level: label }), log: loggable },
      ...(traceIds === undefined ? {} : { mixin: () => traceIds() ?? NO_FIELDS, mixinMergeStrategy: (fields: object, ids: object) => ({ ...fields, ...ids }) }),
    },
    sink as DestinationStream,
  );
  return {
    debug: (message, fields) => log.debug(fields ?? NO_FIELDS, message),
    info: (message, fields) => log.info(fields ?? NO_FIELDS, message),
    warn: (message, fields) => log.warn(fields ?? NO_FIELDS, message),
    error: (message, fields) => log.error(fields ?? NO_FIELDS, message),
  };
}

function loggable(fields: Record<string, unknown>): Record<string, unknown> {
  try {
    const entry: Record<string, unknown> = {};
    const ancestors = new Set<object>();
    for (const key of Object.keys(fields)) entry[RESERVED.has(key) ? `field.${key}` : key] = field(key, fields[key], ancestors);
    return entry;
  } catch {
    // A getter that throws must not take the service down.
    return { logError: 'fields could not be serialized' };
  }
}

function field(key: string, value: unknown, ancestors: Set<object>): unknown {
  if (value === undefined || value === null) return value;
  if (SENSITIVE_KEY.test(key)) return REDACTED;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return value;
  if (ancestors.has(value)) return '[Circular]';
  ancestors.add(value);
  try {
    if (value instanceof Error) {
      return { name: value.name, message: value.message, stack: value.stack, cause: field('cause', value.cause, ancestors) };
    }
    if (Array.isArray(value)) return value.map((item, index) => field(String(index), item, ancestors));
    // Dates, buffers and the like write themselves.
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
    const copy: Record<string, unknown> = {};
    for (const name of Object.keys(value)) copy[name] = field(name, (value as Record<string, unknown>)[name], ancestors);
    return copy;
  } finally {
    ancestors.delete(value);
  }
}
