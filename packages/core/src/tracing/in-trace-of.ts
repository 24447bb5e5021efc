import { context, type Context } from '@opentelemetry/api';
import type { Principal } from '../domain/principal.js';
import { callInContextOf } from './calls-in-context.js';

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
  if (traceContext === undefined) return port;
  let View = viewClasses.get(port);
  if (View === undefined) viewClasses.set(port, (View = viewClassOf(port)));
  return new View(traceContext) as T;
}

/** A view of a port for one trace context. */
type ViewClass = new (traceContext: Context) => object;

/**
 * One view class per port, made on the first traced call: a view is then one
 * small object per request. (A `Proxy` per request, as before, cost a trap
 * and a new function on every member read, on every traced request.) The
 * port's members are those it has when its view class is made; the storage
 * ports are fixed objects.
 */
const viewClasses = new WeakMap<object, ViewClass>();

/** Where a view keeps its context: a symbol, so no member of a port can shadow it. */
const TRACE_CONTEXT = Symbol('traceContext');

/** What a view holds: the trace context its calls are made in. */
interface View {
  readonly [TRACE_CONTEXT]: Context;
}

function viewClassOf(port: object): ViewClass {
  class PortView implements View {
    readonly [TRACE_CONTEXT]: Context;

    constructor(traceContext: Context) {
      this[TRACE_CONTEXT] = traceContext;
    }
  }
  for (const key of memberNames(port)) Object.defineProperty(PortView.prototype, key, memberDescriptor(port, key));
  return PortView;
}

/** How a view presents one member of `port`: a method run in the view's context, or a getter of anything else. */
function memberDescriptor(port: object, key: string | symbol): PropertyDescriptor {
  const member: unknown = Reflect.get(port, key);
  const callInContext = callInContextOf(member);
  if (callInContext !== undefined) {
    return {
      // A traced storage member takes the context as it is (see CallInContext); the traced ports are fixed objects.
      value(this: View, ...args: unknown[]): unknown {
        return callInContext(this[TRACE_CONTEXT], args);
      },
    };
  }
  if (typeof member !== 'function') return { get: () => Reflect.get(port, key) as unknown };
  return {
    // Looked up at each call, as a direct call would; `this` stays the port.
    value(this: View, ...args: unknown[]): unknown {
      return context.with(this[TRACE_CONTEXT], Reflect.get(port, key) as (...args: unknown[]) => unknown, port, ...args);
    },
  };
}

/** The port's members: its own and its prototypes' (a class instance's methods), but not Object's. */
function memberNames(port: object): Set<string | symbol> {
  const names = new Set<string | symbol>();
  for (let target: object | null = port; target !== null && target !== Object.prototype; target = Reflect.getPrototypeOf(target)) {
    for (const key of Reflect.ownKeys(target)) if (key !== 'constructor') names.add(key);
  }
  return names;
}
