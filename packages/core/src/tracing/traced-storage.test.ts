import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  context,
  createContextKey,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type ContextManager,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '@plant-store/storage-memory';
import { createPlantStore } from '../composition/create-plant-store.js';
import type { PlantStore } from '../composition/plant-store.js';
import type { Principal } from '../domain/principal.js';
import type { EndpointEvent } from '../ports/plant-repository.js';
import type { Storage } from '../ports/storage.js';
import type { NewDelivery } from '../ports/webhook-outbox.js';
import { collectListing } from '../service/plant-listing.js';
import { formatTraceparent } from './trace-parent.js';
import { tracedStorage } from './traced-storage.js';

// A minimal OpenTelemetry SDK made of the API's interfaces only (core depends
// on nothing more): a context manager on AsyncLocalStorage, and a tracer that
// records every span it starts.

interface RecordedSpan {
  readonly name: string;
  readonly kind: SpanKind | undefined;
  readonly attributes: Attributes;
  readonly parentSpanId: string | undefined;
  readonly spanContext: SpanContext;
  status?: SpanStatus;
  ended: boolean;
}

const recorded: RecordedSpan[] = [];

class AsyncContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#storage.disable();
    return this;
  }
}

function recordingSpan(record: RecordedSpan): Span {
  const span: Span = {
    spanContext: () => record.spanContext,
    setAttribute: (key, value) => (((record.attributes as Record<string, unknown>)[key] = value), span),
    setAttributes: (attributes) => (Object.assign(record.attributes, attributes), span),
    addEvent: () => span,
    addLink: () => span,
    addLinks: () => span,
    setStatus: (status) => ((record.status = status), span),
    updateName: () => span,
    end: () => void (record.ended = true),
    isRecording: () => !record.ended,
    recordException: () => {},
  };
  return span;
}

const tracer: Tracer = {
  startSpan(name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span {
    const parent = trace.getSpanContext(ctx);
    const record: RecordedSpan = {
      name,
      kind: options.kind,
      attributes: { ...options.attributes },
      parentSpanId: parent?.spanId,
      spanContext: { traceId: parent?.traceId ?? randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), traceFlags: TraceFlags.SAMPLED },
      ended: false,
    };
    recorded.push(record);
    return recordingSpan(record);
  },
  startActiveSpan: (() => {
    throw new Error('not used by traced storage');
  }) as Tracer['startActiveSpan'],
};
const provider: TracerProvider = { getTracer: () => tracer };

const delivery = (id: string) => ({ id, tenant: 'acme', endpointId: 'sub_1', eventType: 'plant.created', payload: '{"id":1}', createdAt: 1 });

/** Runs `fn` inside a request's span, as the HTTP adapter does. */
function inRequest<T>(fn: (request: Span) => Promise<T>): Promise<T> {
  const request = tracer.startSpan('POST /plants', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
  return context.with(trace.setSpan(ROOT_CONTEXT, request), () => fn(request));
}

describe('tracedStorage with an OpenTelemetry SDK', () => {
  let storage: Storage;

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncContextManager());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });
  beforeEach(() => {
    recorded.length = 0;
    storage = tracedStorage(memoryStorage());
  });

  it('traces nothing outside a span (background work starts no trace) and stamps no traceparent', async () => {
    await storage.plants.create('acme', { id: 1n, name: 'Fern' }, [delivery('msg_1')]);
    await storage.outbox.claimDue({ owner: 'a', now: 10, leaseMs: 1_000, limit: 10 });
    await storage.endpoints.list('acme', { limit: 10 });
    expect(recorded).toEqual([]);
    expect(await storage.outbox.get('msg_1')).not.toHaveProperty('traceparent');
  });

  it('inside a span, makes one CLIENT child span per call and stamps its traceparent on the deliveries a write queues', async () => {
    const request = await inRequest(async (span) => {
      await storage.plants.create('acme', { id: 1n, name: 'Fern' }, [delivery('msg_1')]);
      await storage.outbox.get('msg_1');
      return span;
    });
    const requestSpanId = request.spanContext().spanId;
    expect(recorded.slice(1).map(({ name, kind, parentSpanId, ended, attributes }) => ({ name, kind, parentSpanId, ended, attributes }))).toEqual([
      {
        name: 'create plants',
        kind: SpanKind.CLIENT,
        parentSpanId: requestSpanId,
        ended: true,
        attributes: { 'db.operation.name': 'create', 'db.collection.name': 'plants' },
      },
      {
        name: 'get webhook_deliveries',
        kind: SpanKind.CLIENT,
        parentSpanId: requestSpanId,
        ended: true,
        attributes: { 'db.operation.name': 'get', 'db.collection.name': 'webhook_deliveries' },
      },
    ]);
    expect((await storage.outbox.get('msg_1'))?.traceparent).toBe(formatTraceparent(recorded[1]!.spanContext));
  });

  it('stamps the traceparent of a delete\u2019s span on the deliveries its event queues', async () => {
    const endpoint = {
      id: 'ep_deleted',
      tenant: 'acme',
      url: 'https://receiver.example/hook',
      eventTypes: ['plant.deleted'] as const,
      secret: 'whsec_x',
      createdAt: 1,
    };
    await storage.endpoints.create(endpoint, 50);
    await storage.plants.create('acme', { id: 1n, name: 'Fern' }, []);
    await inRequest(() => storage.plants.delete('acme', 1n, { eventType: 'plant.deleted', payload: '{"id":1}', createdAt: 2 }));
    const deleteSpan = recorded.find((span) => span.name === 'delete plants');
    expect(deleteSpan).toBeDefined();
    const [queued] = (await storage.outbox.list())!;
    expect(queued).toMatchObject({ endpointId: 'ep_deleted', eventType: 'plant.deleted', traceparent: formatTraceparent(deleteSpan!.spanContext) });
  });

  it('inside a span the sampler dropped, makes no span and stamps that span\u2019s traceparent, its decision with it', async () => {
    const dropped = trace.wrapSpanContext({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), traceFlags: TraceFlags.NONE });
    await context.with(trace.setSpan(ROOT_CONTEXT, dropped), async () => {
      await storage.plants.create('acme', { id: 1n, name: 'Fern' }, [delivery('msg_1')]);
      await storage.outbox.get('msg_1');
      await storage.plants.delete('acme', 1n, { eventType: 'plant.deleted', payload: '{"id":1}', createdAt: 2 });
    });
    expect(recorded).toEqual([]);
    const traceparent = formatTraceparent(dropped.spanContext());
    expect(traceparent).toMatch(/-00$/);
    expect((await storage.outbox.get('msg_1'))?.traceparent).toBe(traceparent);
  });

  it('ends a failed call\u2019s span as an error naming the error class only, and rethrows', async () => {
    await storage.outbox.enqueue(delivery('msg_1'));
    const failure = inRequest(() => storage.outbox.enqueue(delivery('msg_1')));
    await expect(failure).rejects.toMatchObject({ name: 'StorageError' });
    expect(recorded[1]).toMatchObject({ name: 'enqueue webhook_deliveries', ended: true, status: { code: 2 }, attributes: { 'error.type': 'StorageError' } });
  });

  it('ends a call\u2019s span before its caller resumes, and hands the caller the storage\u2019s own answer', async () => {
    const memory = memoryStorage();
    const answer = Promise.resolve(undefined);
    const traced = tracedStorage({ ...memory, plants: { ...memory.plants, get: () => answer } });
    await inRequest(async () => {
      const pending = traced.plants.get('acme', 1n);
      expect(pending).toBe(answer);
      await pending;
      expect(recorded[1]).toMatchObject({ name: 'get plants', ended: true });
    });
  });

  it('ends the span of a call that throws instead of rejecting as an error, and rethrows', async () => {
    const memory = memoryStorage();
    const broken = new TypeError('not a promise');
    const traced = tracedStorage({
      ...memory,
      plants: {
        ...memory.plants,
        get: () => {
          throw broken;
        },
      },
    });
    await inRequest(async () => {
      expect(() => traced.plants.get('acme', 1n)).toThrow(broken);
    });
    expect(recorded[1]).toMatchObject({ name: 'get plants', ended: true, status: { code: 2 }, attributes: { 'error.type': 'TypeError' } });
  });

  it('stamps copies that keep every field of the deliveries and event handed in, leaving those untouched', async () => {
    const full: Required<Omit<NewDelivery, 'traceparent'>> = { ...delivery('msg_1'), orderingKey: '7', test: true };
    const event: Required<Omit<EndpointEvent, 'traceparent'>> = { eventType: 'plant.created', payload: '{"id":1}', createdAt: 2 };
    const memory = memoryStorage();
    const handed: { deliveries: readonly NewDelivery[]; event: EndpointEvent | undefined }[] = [];
    const traced = tracedStorage({
      ...memory,
      plants: {
        ...memory.plants,
        create: async (_tenant, plant, deliveries, endpointEvent) => {
          handed.push({ deliveries, event: endpointEvent });
          return { created: true, plant };
        },
      },
    });
    await inRequest(() => traced.plants.create('acme', { id: 1n, name: 'Fern' }, [full, delivery('msg_2')], event));
    const traceparent = formatTraceparent(recorded[1]!.spanContext);
    expect(handed).toEqual([
      {
        deliveries: [
          { ...full, traceparent },
          { ...delivery('msg_2'), traceparent },
        ],
        event: { ...event, traceparent },
      },
    ]);
    expect(full).not.toHaveProperty('traceparent');
    expect(event).not.toHaveProperty('traceparent');
  });

  it('leaves absent optional capabilities absent, and keeps present ones', () => {
    const memory = memoryStorage();
    const { plants } = memory;
    // The memory adapter's plants (without the optional JSON reads), and with them.
    const withoutJson = {
      create: plants.create.bind(plants),
      get: plants.get.bind(plants),
      list: plants.list.bind(plants),
      idAtOffset: plants.idAtOffset.bind(plants),
      delete: plants.delete.bind(plants),
    };
    expect(tracedStorage({ ...memory, plants: withoutJson }).plants).not.toHaveProperty('listJson');
    expect(tracedStorage({ ...memory, plants: withoutJson }).plants).not.toHaveProperty('getJson');
    const withJson = { ...withoutJson, getJson: async () => undefined, listJson: async () => ({ json: '[]', count: 0, lastId: undefined, more: false }) };
    expect(tracedStorage({ ...memory, plants: withJson }).plants).toHaveProperty('listJson');
    expect(tracedStorage({ ...memory, plants: withJson }).plants).toHaveProperty('getJson');
    expect(storage.outbox).not.toHaveProperty('takeRateBudget');
    expect(storage).not.toHaveProperty('dbSystem');
  });
});

describe('a store\u2019s storage calls for a principal, with a host\u2019s SDK', () => {
  const gardener: Principal = { subject: 'app', tenant: 'acme', scopes: ['plants:read', 'plants:write'] };
  let store: PlantStore;

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncContextManager());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });
  beforeEach(async () => {
    // Batches of two: an unlimited listing reads storage again each time its stream is iterated.
    store = createPlantStore({ storage: memoryStorage(), batchSize: 2 });
    for (const id of [1, 2, 3]) await store.plants.create(gardener, { id, name: `Plant ${id}` });
    recorded.length = 0;
  });
  afterEach(() => store.close());

  /** Creates a plant, then lists them all, reading the stream to its end: storage calls before and after several awaits. */
  async function createAndList(principal: Principal): Promise<void> {
    await store.plants.create(principal, { id: 4, name: 'Fern' });
    const { batches } = await store.plants.list(principal);
    expect((await collectListing({ batches })).map((plant) => plant.id)).toEqual([1n, 2n, 3n, 4n]);
  }

  /** The storage spans of `createAndList`, all children of `parentSpanId`: the create, then the listing's batches. */
  const createAndListSpans = (parentSpanId: string) => [
    { name: 'create plants', parentSpanId },
    { name: 'list plants', parentSpanId },
    { name: 'list plants', parentSpanId },
    { name: 'list plants', parentSpanId },
  ];
  const storageSpans = () => recorded.filter((span) => span.kind === SpanKind.CLIENT).map(({ name, parentSpanId }) => ({ name, parentSpanId }));

  it('makes the active span (a request\u2019s, or a host\u2019s) their parent, after any await', async () => {
    const host = await inRequest(async (span) => {
      await createAndList(gardener);
      return span;
    });
    const parentSpanId = host.spanContext().spanId;
    expect(storageSpans()).toEqual(createAndListSpans(parentSpanId));
  });

  it('with neither, traces nothing', async () => {
    await createAndList(gardener);
    expect(recorded).toEqual([]);
  });
});

describe('tracedStorage in a context', () => {
  it('makes a child span under a recording span, and otherwise calls the storage in the active context as it is', async () => {
    context.setGlobalContextManager(new AsyncContextManager());
    trace.setGlobalTracerProvider(provider);
    try {
      recorded.length = 0;
      const key = createContextKey('call');
      const seen: unknown[] = [];
      const memory = memoryStorage();
      const plants = memory.plants;
      const storage = tracedStorage({
        ...memory,
        plants: {
          create: (...args) => plants.create(...args),
          get: (tenant, id) => (seen.push(context.active().getValue(key)), plants.get(tenant, id)),
          list: (...args) => plants.list(...args),
          idAtOffset: (...args) => plants.idAtOffset(...args),
          delete: (...args) => plants.delete(...args),
        },
      });
      const request = tracer.startSpan('GET /plants/{id}', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
      const dropped = trace.wrapSpanContext({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), traceFlags: TraceFlags.NONE });
      const inContextOf = (span: Span | undefined) =>
        (span ? trace.setSpan(ROOT_CONTEXT, span) : ROOT_CONTEXT).setValue(key, span?.spanContext().spanId ?? 'none');
      for (const span of [request, dropped, undefined]) {
        await context.with(inContextOf(span), async () => {
          await storage.plants.get('acme', 1n);
          await storage.plants.create('acme', { id: 1n, name: 'Fern' }, [delivery(`msg_${seen.length}`)]);
        });
        await storage.plants.delete('acme', 1n);
      }
      // The recording span's calls are its children; the other two made none, and ran in the active context.
      expect(recorded.slice(1).map(({ name, parentSpanId }) => ({ name, parentSpanId }))).toEqual([
        { name: 'get plants', parentSpanId: request.spanContext().spanId },
        { name: 'create plants', parentSpanId: request.spanContext().spanId },
      ]);
      expect(seen).toEqual([request.spanContext().spanId, dropped.spanContext().spanId, 'none']);
      const stamped = Object.fromEntries((await memory.outbox.list())!.map((queued) => [queued.id, queued.traceparent]));
      expect(stamped).toEqual({ msg_1: formatTraceparent(recorded[2]!.spanContext), msg_2: formatTraceparent(dropped.spanContext()), msg_3: undefined });
    } finally {
      trace.disable();
      context.disable();
    }
  });
});
