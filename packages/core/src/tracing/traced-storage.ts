import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type SpanOptions } from '@opentelemetry/api';
import type { Plant } from '../domain/plant.js';
import type { EndpointEvent, PlantRepository } from '../ports/plant-repository.js';
import type { PortalLinkRepository } from '../ports/portal-link-repository.js';
import type { Storage } from '../ports/storage.js';
import type { WebhookEndpointRepository } from '../ports/webhook-endpoint-repository.js';
import type { NewDelivery, WebhookOutbox } from '../ports/webhook-outbox.js';
import { formatTraceparent } from './trace-parent.js';
import { tracer } from './tracer.js';

/** A traced member's span name, kind and attributes, built once per storage. */
interface Operation {
  readonly name: string;
  readonly options: SpanOptions;
}

type AsyncMember<T> = { [K in keyof T]-?: T[K] extends (...args: never[]) => Promise<unknown> ? K : never }[keyof T];

// Every member of each port, checked by the compiler, so a member added to a port is not left untraced (or missing).
const PLANT_MEMBERS = { create: true, get: true, list: true, idAtOffset: true, delete: true } satisfies Record<
  Exclude<keyof PlantRepository, 'getJson' | 'listJson'>,
  true
>;
const OUTBOX_MEMBERS = {
  claimDue: true,
  recordAttempt: true,
  release: true,
  nextDueAt: true,
  pendingStats: true,
  waitingSince: true,
  get: true,
  list: true,
  requeue: true,
  endpointAttemptStats: true,
  enqueue: true,
  prune: true,
  stuckLines: true,
  releaseStuckLine: true,
} satisfies Record<AsyncMember<WebhookOutbox>, true>;
const ENDPOINT_MEMBERS = {
  create: true,
  get: true,
  list: true,
  update: true,
  delete: true,
  secrets: true,
  rotateSecret: true,
  find: true,
  listAll: true,
  setStatus: true,
  noteAttempt: true,
} satisfies Record<AsyncMember<WebhookEndpointRepository>, true>;
const PORTAL_LINK_MEMBERS = { create: true, find: true, revoke: true, list: true } satisfies Record<keyof PortalLinkRepository, true>;

/**
 * The storage with one CLIENT span per repository call inside a recording span (background polls would start a trace each), and the
 * write's `traceparent` stamped on the deliveries it queues, so attempts link back to it (a dropped span's too: not sampling travels on).
 */
export function tracedStorage(storage: Storage): Storage {
  const { dbSystem: system, outbox } = storage;
  return {
    plants: tracedPlants(storage.plants, system),
    outbox: {
      ...tracedMembers(outbox, OUTBOX_MEMBERS, system, 'webhook_deliveries'),
      // Not a storage call but a subscription: passed through as it is (and left out when the storage has none).
      ...('watch' in outbox ? { watch: (listener: () => void) => outbox.watch!(listener) } : {}),
      // Optional capabilities pass through untraced, and stay absent when the storage has none (the dispatcher and pruner ask).
      ...(outbox.takeRateBudget ? { takeRateBudget: outbox.takeRateBudget.bind(outbox) } : {}),
      ...(outbox.reclaimSpace ? { reclaimSpace: outbox.reclaimSpace.bind(outbox) } : {}),
    },
    endpoints: {
      ...tracedMembers(storage.endpoints, ENDPOINT_MEMBERS, system, 'webhook_endpoints'),
      // A subscription as the outbox's `watch` is: passed through untraced, absent when the storage has none.
      ...(storage.endpoints.watch ? { watch: storage.endpoints.watch.bind(storage.endpoints) } : {}),
    },
    portalLinks: tracedMembers(storage.portalLinks, PORTAL_LINK_MEMBERS, system, 'portal_links'),
    // Writes on the host's transaction pass through untraced: the host's own spans cover its transaction.
    ...(storage.joinTransaction ? { joinTransaction: (executor: unknown) => storage.joinTransaction!(executor) } : {}),
    ...(system === undefined ? {} : { dbSystem: system }),
    ping: () => storage.ping(),
    close: () => storage.close(),
  };
}

function tracedPlants(plants: PlantRepository, system: string | undefined): PlantRepository {
  const { create: _create, delete: _delete, ...plantReads } = PLANT_MEMBERS;
  const ops = { create: operation(system, 'plants', 'create'), delete: operation(system, 'plants', 'delete') };
  return {
    ...tracedMembers(plants, plantReads, system, 'plants'),
    // Optional: present only when the storage has it (the service asks whether it exists).
    ...(plants.getJson ? tracedMembers(plants as Required<PlantRepository>, { getJson: true }, system, 'plants') : {}),
    ...(plants.listJson ? tracedMembers(plants as Required<PlantRepository>, { listJson: true }, system, 'plants') : {}),
    create: stampedMember(ops.create, (traceparent, args: [tenant: string, plant: Plant, deliveries: readonly NewDelivery[], event?: EndpointEvent]) =>
      plants.create(args[0], args[1], stampDeliveries(args[2], traceparent), stampEvent(args[3], traceparent)),
    ),
    delete: stampedMember(ops.delete, (traceparent, args: [tenant: string, id: bigint, event?: EndpointEvent]) =>
      plants.delete(args[0], args[1], stampEvent(args[2], traceparent)),
    ),
  };
}

/** A write that queues deliveries, handed the `traceparent` to stamp: its own span's under a recording span, a dropped span's own, else none. */
function stampedMember<A extends unknown[], T>(op: Operation, write: (traceparent: string | undefined, args: A) => Promise<T>): (...args: A) => Promise<T> {
  const inSpan = (args: A, span: Span) => write(formatTraceparent(span.spanContext()), args);
  return (...args: A) => {
    const parentSpan = trace.getActiveSpan();
    if (parentSpan?.isRecording()) return traced(op, inSpan, args);
    return write(parentSpan && formatTraceparent(parentSpan.spanContext()), args);
  };
}

function operation(system: string | undefined, collection: string, member: string): Operation {
  const attributes: Attributes = { 'db.operation.name': member, 'db.collection.name': collection };
  if (system !== undefined) attributes['db.system.name'] = system;
  // The database conventions' `{operation} {target}`; one options object for every call.
  return { name: `${member} ${collection}`, options: Object.freeze({ kind: SpanKind.CLIENT, attributes: Object.freeze(attributes) }) };
}

/** Each listed member of `target`, traced; `this` stays the target, and the member is looked up at each call, as an unwrapped call would. */
function tracedMembers<T extends object, K extends keyof T>(target: T, members: Record<K, true>, system: string | undefined, collection: string): Pick<T, K> {
  const wrapped: Partial<Record<K, unknown>> = {};
  for (const member of Object.keys(members) as K[]) {
    const op = operation(system, collection, String(member));
    const call = (args: unknown[]) => (target[member] as (...args: unknown[]) => Promise<unknown>).apply(target, args);
    // Untraced outside a recording span: a dropped span's child would be dropped too.
    wrapped[member] = (...args: unknown[]) => (trace.getActiveSpan()?.isRecording() ? traced(op, call, args) : call(args));
  }
  return wrapped as Pick<T, K>;
}

/** Runs `call(arg, span)` in a span of its own, a child of the active one; the span ends when the call's promise settles. */
function traced<A, T>(op: Operation, call: (arg: A, span: Span) => Promise<T>, arg: A): Promise<T> {
  const parent = context.active();
  const span = tracer.startSpan(op.name, op.options, parent);
  let result: Promise<T>;
  try {
    result = context.with(trace.setSpan(parent, span), call, undefined, arg, span);
  } catch (error) {
    // A storage that throws instead of rejecting: its span ends as failed all the same.
    failed(span, error);
    throw error;
  }
  result.then(
    () => span.end(),
    (error: unknown) => failed(span, error),
  );
  return result;
}

/** The error's class as `error.type`: never its message, which may carry a driver's details of the data. */
function failed(span: Span, error: unknown): void {
  span.setAttribute('error.type', error instanceof Error ? error.name : '_OTHER');
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

function stampDeliveries(deliveries: readonly NewDelivery[], traceparent: string | undefined): readonly NewDelivery[] {
  return traceparent === undefined ? deliveries : deliveries.map((delivery) => ({ ...delivery, traceparent }));
}

function stampEvent(event: EndpointEvent | undefined, traceparent: string | undefined): EndpointEvent | undefined {
  return traceparent === undefined || event === undefined ? event : { ...event, traceparent };
}
