import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

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
  #active: Context = ROOT_CONTEXT;

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
    this.#active = ROOT_CONTEXT;
    return this;
  }
}
