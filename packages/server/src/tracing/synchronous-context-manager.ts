import type { Context, ContextManager } from '@opentelemetry/api';

/**
 * An OpenTelemetry context manager that keeps the active context for the
 * synchronous run of `with` only: it is set when `fn` starts and restored
 * when `fn` returns or throws, and code after an `await` inside `fn` sees
 * whatever is active when it resumes (the root context, between tasks).
 *
 * The service passes its trace context explicitly instead (the HTTP listener
 * hands the request's to the store on the principal, and the store enters it
 * around each storage call), so it needs no context that follows promises.
 * The SDK's default, `AsyncLocalStorage`, does follow them, and on Node 20
 * that turns on promise hooks for every promise in the process, which costs
 * more than all the spans it would carry.
 */
export class SynchronousContextManager implements ContextManager {
  #active: Context = CHAINED_ROOT;

  active(): Context {
    return this.#active;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const previous = this.#active;
    this.#active = context;
    try {
      return fn.apply(thisArg, args);
    } finally {
      this.#active = previous;
    }
  }

  /** A function that runs `fn` in `context` each time it is called; anything else (an event emitter, say) is returned as it is. */
  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    const run = (thisArg: unknown, args: unknown[]) => this.with(context, fn, thisArg, ...args);
    // A plain function, so that the caller's `this` reaches the target.
    return function (this: unknown, ...args: unknown[]) {
      return run(this, args);
    } as unknown as T;
  }

  enable(): this {
    return this;
  }

  /** Back to the root context (the API calls this when the SDK is shut down). */
  disable(): this {
    this.#active = CHAINED_ROOT;
    return this;
  }
}

/**
 * A context as a chain of values, each context one key and value over its
 * parent. The API's own contexts copy their whole map for each value set;
 * a traced request sets one for its span and one per storage call, and a
 * chain link is one small object where a copied map is several. The
 * contexts the service makes are a few values deep, so a lookup walks a
 * few links. A deleted value is a link without one.
 */
class ChainedContext implements Context {
  readonly #parent: ChainedContext | undefined;
  readonly #key: symbol | undefined;
  readonly #value: unknown;

  constructor(parent: ChainedContext | undefined, key: symbol | undefined, value: unknown) {
    this.#parent = parent;
    this.#key = key;
    this.#value = value;
  }

  getValue(key: symbol): unknown {
    for (let context: ChainedContext | undefined = this; context !== undefined; context = context.#parent) {
      if (context.#key === key) return context.#value;
    }
    return undefined;
  }

  setValue(key: symbol, value: unknown): Context {
    return new ChainedContext(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return new ChainedContext(this, key, undefined);
  }
}

/** The context active outside any `with`: no values, as the API's `ROOT_CONTEXT`. */
export const CHAINED_ROOT: Context = new ChainedContext(undefined, undefined, undefined);
