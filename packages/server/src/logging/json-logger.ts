import type { Context } from '@opentelemetry/api';
import type { LogFields, Logger } from '@plant-store/core/adapter';

/** Severity of a log entry, least to most severe. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Where log lines go: anything with a `write(string)` (process.stdout, a file stream, a test buffer). */
export interface LogSink {
  write(chunk: string): unknown;
}

export interface JsonLoggerOptions {
  /** Entries below this level are dropped. @default 'info' */
  readonly level?: LogLevel;
  /** Current time in epoch milliseconds. @default Date.now */
  readonly now?: () => number;
  /**
   * The ids of the span active when an entry is written, added after the
   * entry's own fields. Called once per entry written.
   */
  readonly traceIds?: () => TraceIds | undefined;
  /**
   * The ids of the span a trace context names. Given, the logger has
   * `inTrace`: its entries for one context carry these ids, found once for
   * all of them.
   */
  readonly traceIdsIn?: (traceContext: Context) => TraceIds | undefined;
}

/** A span's ids, as its trace context gives them (lowercase hex). */
export interface TraceIds {
  readonly traceId: string;
  readonly spanId: string;
  /**
   * Both ids are known to be hex digits (their tracer vouches for them):
   * written after the serialized entry as they are, without the
   * serializer's pass over them, which cost more per line than the rest of
   * what tracing adds to it. Anything else is serialized, so it is escaped.
   */
  readonly hex?: boolean;
}

// Defence in depth: callers must never log credentials, but if one slips into
// a field (a header object, a config dump) it is masked rather than shipped.
const SENSITIVE_KEY = /token|secret|authorization|password|passwd|cookie|api[-_]?key|credential/i;
const REDACTED = '[redacted]';
const RESERVED = new Set(['time', 'level', 'msg']);

/**
 * A core `Logger` writing one JSON object per line:
 * `{"time":"<ISO 8601>","level":"info","msg":"request",…fields}`.
 * bigints are written as decimal strings (exact int64 ids), errors as
 * `{name, message, stack}`, cycles as `"[Circular]"`; fields whose name looks
 * like a credential are redacted. Never throws.
 */
export function jsonLogger(sink: LogSink, options: JsonLoggerOptions = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? 'info');
  const now = options.now ?? Date.now;
  const traceIds = options.traceIds;

  // Most entries land in the same millisecond as the one before (one per request under load).
  let lastMs = NaN;
  let lastTime = '';
  const timestamp = (ms: number): string => {
    if (ms !== lastMs) {
      lastTime = new Date(ms).toISOString();
      lastMs = ms;
    }
    return lastTime;
  };

  const write: WriteEntry = (level, message, fields, ids) => {
    sink.write(entryLine({ time: timestamp(now()), level, msg: message }, fields, ids));
  };

  // Decided once per level, for this logger and the ones it makes per trace context.
  const written = Object.fromEntries(LOG_LEVELS.map((level, index) => [level, index >= threshold])) as WrittenLevels;
  // An entry below the threshold costs one empty call.
  const method = (level: LogLevel): Logger['info'] => (written[level] ? (message, fields) => write(level, message, fields, traceIds?.()) : () => {});
  const traceIdsIn = options.traceIdsIn;
  return {
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    ...(traceIdsIn === undefined ? {} : { inTrace: (traceContext: Context) => new EntriesInTrace(write, written, traceIdsIn(traceContext)) }),
  };
}

/** Which levels a logger writes (the others are below its threshold). */
type WrittenLevels = Readonly<Record<LogLevel, boolean>>;

type WriteEntry = (level: LogLevel, message: string, fields: LogFields | undefined, ids: TraceIds | undefined) => void;

/** A JSON logger's entries for one trace context (see `inTrace`): each carries the same ids, found when it was made. */
class EntriesInTrace implements Logger {
  readonly #write: WriteEntry;
  readonly #written: WrittenLevels;
  readonly #ids: TraceIds | undefined;

  constructor(write: WriteEntry, written: WrittenLevels, ids: TraceIds | undefined) {
    this.#write = write;
    this.#written = written;
    this.#ids = ids;
  }

  debug(message: string, fields?: LogFields): void {
    this.#entry('debug', message, fields);
  }

  info(message: string, fields?: LogFields): void {
    this.#entry('info', message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    this.#entry('warn', message, fields);
  }

  error(message: string, fields?: LogFields): void {
    this.#entry('error', message, fields);
  }

  #entry(level: LogLevel, message: string, fields: LogFields | undefined): void {
    if (this.#written[level]) this.#write(level, message, fields, this.#ids);
  }
}

/** The entry as one JSON line (newline included): the envelope, the fields, then the span's ids. */
function entryLine(envelope: { time: string; level: LogLevel; msg: string }, fields: LogFields | undefined, ids: TraceIds | undefined): string {
  // The envelope object itself gets the fields: one object per entry, no copy.
  const entry: Record<string, unknown> = envelope;
  const plain = addFields(entry, fields);
  if (ids === undefined) return `${serializeObject(entry, plain)}\n`;
  // Ids vouched for as hex need no escaping: put after the serialized entry's last field, unless a field of the
  // same name is in it (the ids win, as below).
  if (ids.hex === true && plain && entry['traceId'] === undefined && entry['spanId'] === undefined) {
    const json = JSON.stringify(entry);
    return `${json.slice(0, -1)},"traceId":"${ids.traceId}","spanId":"${ids.spanId}"}\n`;
  }
  // Last, and over fields of the same names: a line names one span. Serialized with the rest, which escapes whatever an id holds.
  entry['traceId'] = ids.traceId;
  entry['spanId'] = ids.spanId;
  return `${serializeObject(entry, plain)}\n`;
}

/** The entry as JSON; `plain` when every field is one the native serializer writes as the replacer would. */
function serializeObject(entry: Record<string, unknown>, plain: boolean): string {
  // Fast path (the request line): a replacer would make V8 leave its
  // native serializer, at several times the cost, for nothing to do.
  if (plain) return JSON.stringify(entry);
  try {
    return JSON.stringify(entry, safeReplacer());
  } catch {
    // A getter that throws or a toJSON that fails must not take the service down.
    return JSON.stringify({ time: entry['time'], level: entry['level'], msg: entry['msg'], logError: 'fields could not be serialized' });
  }
}

/** Adds the fields to the entry; true when all of them are plain (see isPlainField). */
function addFields(entry: Record<string, unknown>, fields: LogFields | undefined): boolean {
  let plain = true;
  if (fields) {
    for (const key of Object.keys(fields)) {
      const value = fields[key];
      // A field cannot overwrite the envelope; keep it under another name.
      entry[RESERVED.has(key) ? `field.${key}` : key] = value;
      if (plain) plain = isPlainField(key, value);
    }
  }
  return plain;
}

const sensitiveKeys = new Map<string, boolean>();

/** Whether a field name looks like a credential; memoized, as the same few names come back on every entry. */
function isSensitiveKey(key: string): boolean {
  let sensitive = sensitiveKeys.get(key);
  if (sensitive === undefined) {
    sensitive = SENSITIVE_KEY.test(key);
    // Bounded: field names are meant to be fixed, but a caller could make them up.
    if (sensitiveKeys.size < 1024) sensitiveKeys.set(key, sensitive);
  }
  return sensitive;
}

/** True when the replacer would leave the field as it is: a primitive JSON writes natively, under a name that is not redacted. */
function isPlainField(key: string, value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return !isSensitiveKey(key);
    case 'undefined':
      return true;
    default:
      return value === null;
  }
}

function safeReplacer(): (this: unknown, key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return function replacer(key, value) {
    if (key !== '' && SENSITIVE_KEY.test(key) && value !== undefined && value !== null) return REDACTED;
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) {
      return { name: value.name, message: value.message, stack: value.stack, cause: value.cause };
    }
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  };
}
