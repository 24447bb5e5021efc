import type { Context } from '@opentelemetry/api';

/**
 * A traced storage member called with its trace context given, for a view
 * of the port that holds one (see `inTraceOf`). Without it the view enters
 * the context around the member only for the member to read it back as the
 * active one: two lookups of the OpenTelemetry API's globals, and a call
 * through the context manager, on every storage call of a traced request.
 */
export type CallInContext = (traceContext: Context, args: unknown[]) => Promise<unknown>;

// Keyed by the member itself: a port's members are copied into other objects (spread), which carry them along.
const callsInContext = new WeakMap<object, CallInContext>();

/** `member`, with `callInContext` as its call for a given trace context; returns the member. */
export function withCallInContext<F extends object>(member: F, callInContext: CallInContext): F {
  callsInContext.set(member, callInContext);
  return member;
}

/** The call for a given trace context of a port member, if it has one. */
export function callInContextOf(member: unknown): CallInContext | undefined {
  return typeof member === 'function' ? callsInContext.get(member) : undefined;
}
