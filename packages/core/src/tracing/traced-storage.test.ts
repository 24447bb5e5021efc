import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  context,
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
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '@plant-store/storage-memory';
import type { Storage } from '../ports/storage.js';
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
    setAttribute: (key, value) => ((record.attributes as Record<string, unknown>)[key] = value, span),
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
      { name: 'create plants', kind: SpanKind.CLIENT, parentSpanId: requestSpanId, ended: true, attributes: { 'db.operation.name': 'create', 'db.collection.name': 'plants' } },
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
    const endpoint = { id: 'ep_deleted', tenant: 'acme', url: 'https://receiver.example/hook', eventTypes: ['plant.deleted'] as const, secret: 'whsec_x', createdAt: 1 };
    await storage.endpoints.create(endpoint, 50);
    await storage.plants.create('acme', { id: 1n, name: 'Fern' }, []);
    await inRequest(() => storage.plants.delete('acme', 1n, { eventType: 'plant.deleted', payload: '{"id":1}', createdAt: 2 }));
    const deleteSpan = recorded.find((span) => span.name === 'delete plants');
    expect(deleteSpan).toBeDefined();
    const [queued] = (await storage.outbox.list())!;
    expect(queued).toMatchObject({ endpointId: 'ep_deleted', eventType: 'plant.deleted', traceparent: formatTraceparent(deleteSpan!.spanContext) });
  });

  it('ends a failed call\u2019s span as an error naming the error class only, and rethrows', async () => {
    await storage.outbox.enqueue(delivery('msg_1'));
    const failure = inRequest(() => storage.outbox.enqueue(delivery('msg_1')));
    await expect(failure).rejects.toMatchObject({ name: 'StorageError' });
    expect(recorded[1]).toMatchObject({ name: 'enqueue webhook_deliveries', ended: true, status: { code: 2 }, attributes: { 'error.type': 'StorageError' } });
  });

  it('leaves absent optional capabilities absent', () => {
    expect(storage.plants).not.toHaveProperty('listJson');
    expect(storage.outbox).not.toHaveProperty('takeRateBudget');
    expect(storage).not.toHaveProperty('dbSystem');
  });
});
