import { context, type Context } from '@opentelemetry/api';
import type { Principal } from '../domain/principal.js';

/**
 * The port whose calls are made for `principal`: the port itself, or, when
 * the principal carries a trace context (`traceContext`), a view of it whose
 * calls start inside that context, so the traced storage makes their spans
 * its children. The context is entered for the synchronous start of each
 * call, which is when the traced storage reads it: that holds with any
 * context manager, including one that does not follow `await`.
 *
 * Without a trace context (always without an OpenTelemetry SDK) nothing is
 * made: the caller gets the port it passed, and the context active at the
 * call applies, as a host's own SDK expects.
 */
export function inTraceOf<T extends object>(principal: Principal, port: T): T {
  const traceContext = principal.traceContext;
  return traceContext === undefined ? port : new Proxy(port, new CallsInContext<T>(traceContext));
}

/** Hands out the port's methods wrapped to run in the context; anything else as it is. */
class CallsInContext<T extends object> implements ProxyHandler<T> {
  readonly #context: Context;

  constructor(traceContext: Context) {
    this.#context = traceContext;
  }

  get(target: T, key: string | symbol): unknown {
    const value: unknown = Reflect.get(target, key);
    if (typeof value !== 'function') return value;
    const traceContext = this.#context;
    const method = value as (...args: unknown[]) => unknown;
    // `this` stays the port, as in a direct call.
    return (...args: unknown[]) => context.with(traceContext, method, target, ...args);
  }
}
