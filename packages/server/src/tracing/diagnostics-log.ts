import type { DiagLogger } from '@opentelemetry/api';
import type { Logger } from '@plant-store/core/adapter';

/**
 * OpenTelemetry's own problems (a refused export, a bad `OTEL_*` value) as warnings of the service's log, errors included,
 * so an operator learns why traces are missing. The same message is logged at most once per `intervalMs`.
 */
export class DiagnosticsLog implements DiagLogger {
  readonly #lastLogged = new Map<string, { at: number; since: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  error = (message: string, ...details: unknown[]) => this.#log('warn', message, details);
  warn = (message: string, ...details: unknown[]) => this.#log('warn', message, details);
  info = (message: string, ...details: unknown[]) => this.#log('info', message, details);
  debug = (message: string, ...details: unknown[]) => this.#log('debug', message, details);
  verbose = (message: string, ...details: unknown[]) => this.#log('debug', message, details);

  #log(level: 'warn' | 'info' | 'debug', message: string, details: unknown[]): void {
    const now = this.now();
    const last = this.#lastLogged.get(message);
    if (last !== undefined && now - last.at < this.intervalMs) {
      last.since++;
      return;
    }
    // Bounded: messages are meant to be fixed, but one could carry a changing value.
    if (last === undefined && this.#lastLogged.size >= 100) this.#lastLogged.clear();
    this.#lastLogged.set(message, { at: now, since: 0 });
    const fields: Record<string, unknown> = {};
    if (details.length > 0) fields['detail'] = details.map(describe).join('; ');
    if (last !== undefined && last.since > 0) fields['repeated'] = last.since;
    this.logger[level](`tracing: ${message}`, fields);
  }
}

/** An error by its message, never its stack. */
function describe(detail: unknown): string {
  if (detail instanceof Error) return detail.message;
  return typeof detail === 'string' ? detail : String(detail);
}
