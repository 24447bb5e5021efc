import { diag } from '@opentelemetry/api';
import { writeResourceSpans, type InstrumentationScope, type Resource } from '../otlp-trace-protobuf.js';
import { ProtobufWriter } from '../protobuf-writer.js';
import type { EndedSpans, RecordedSpan } from './recorded-span.js';
import { appendRecordedSpan } from './recorded-span-encoder.js';
import type { BatchSettings } from './tracer-settings.js';

/** One OTLP export request, encoded, and how many spans it carries. */
export interface EncodedBatch {
  readonly body: Uint8Array;
  readonly spanCount: number;
}

/** A batch as it waits: with the whole buffer its body was written into, to write the next one into once it is sent. */
interface WaitingBatch extends EncodedBatch {
  readonly buffer: Buffer;
}

/** Where batches go: one at a time, each reported done (sent or given up on) before the next is handed over. */
export interface BatchExport {
  send(batch: EncodedBatch, done: () => void): void;
  shutdown(): Promise<void>;
}

/** The encoded spans of one instrumentation scope in the batch being filled. */
class ScopeBatch implements EndedSpans {
  readonly writer = new ProtobufWriter(Buffer.allocUnsafe(16 * 1024));

  constructor(
    readonly scope: InstrumentationScope,
    private readonly batches: SpanBatches,
  ) {}

  ended(span: RecordedSpan): void {
    this.batches.add(this, span);
  }
}

/**
 * The batch span processor of the service's tracer, with the SDK's
 * behaviour and settings (`OTEL_BSP_*`): sampled spans are exported in
 * batches of at most `maxExportBatchSize`, a batch leaves when full or
 * `scheduledDelayMs` after its first span, one export runs at a time (or
 * until `exportTimeoutMs` has passed), and spans beyond `maxQueueSize`
 * waiting are dropped (and reported).
 *
 * Unlike the SDK's, it keeps no span object: a span is encoded into its
 * scope's buffer the moment it ends, and a full batch becomes one request
 * body at once. The buffers are reused from batch to batch, a request's
 * body too once the exporter is done with it (it holds the body while it
 * retries).
 */
export class SpanBatches {
  readonly #resource: Resource;
  readonly #settings: BatchSettings;
  readonly #export: BatchExport;
  readonly #scopes: ScopeBatch[] = [];
  readonly #waiting: WaitingBatch[] = [];
  readonly #idle: (() => void)[] = [];
  #open = 0;
  #waitingSpans = 0;
  #exporting = false;
  #dropped = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #requestSize = 16 * 1024;
  /**
   * The buffer of the last batch the exporter was done with, written into by
   * the next: a request body is up to about a megabyte, and allocating one
   * per batch had the C allocator consolidate its free chunks each time
   * one was freed (a measurable part of a busy service's CPU).
   */
  #spareBuffer: Buffer | undefined;

  constructor(resource: Resource, settings: BatchSettings, exporter: BatchExport) {
    this.#resource = resource;
    this.#settings = settings;
    this.#export = exporter;
  }

  /** Where the spans of `scope` end up: one per scope, kept for the life of the batches. */
  forScope(scope: InstrumentationScope): EndedSpans {
    const batch = new ScopeBatch(scope, this);
    this.#scopes.push(batch);
    return batch;
  }

  /** Adds an ended span: encoded now, if sampled and there is room. */
  add(scope: ScopeBatch, span: RecordedSpan): void {
    // Every recorded span is sampled (see LightTracer).
    if (this.#stopped) return;
    if (this.#open + this.#waitingSpans >= this.#settings.maxQueueSize) {
      // Counted, and reported with the next batch.
      this.#dropped++;
      return;
    }
    appendRecordedSpan(scope.writer, span);
    if (++this.#open >= this.#settings.maxExportBatchSize) this.#seal();
    else if (this.#timer === undefined) this.#startTimer();
  }

  /** Exports every span ended so far; resolves when all were sent (or given up on). */
  forceFlush(): Promise<void> {
    this.#seal();
    if (!this.#exporting && this.#waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Exports what is left, then shuts the exporter down; spans ended after this are ignored. */
  async shutdown(): Promise<void> {
    if (this.#stopped) return;
    await this.forceFlush();
    this.#stopped = true;
    await this.#export.shutdown();
  }

  #startTimer(): void {
    this.#timer = setTimeout(() => this.#seal(), this.#settings.scheduledDelayMs);
    // A pending batch does not keep the process alive: shutdown flushes it.
    this.#timer.unref();
  }

  /** Closes the batch being filled into a request and queues it for export. */
  #seal(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#open === 0) return;
    const spare = this.#spareBuffer;
    this.#spareBuffer = undefined;
    const writer = new ProtobufWriter(spare !== undefined && spare.length >= this.#requestSize ? spare : Buffer.allocUnsafe(this.#requestSize));
    const scopes = this.#scopes.filter((batch) => batch.writer.pos > 0).map((batch) => ({ scope: batch.scope, spans: batch.writer.buffer.subarray(0, batch.writer.pos) }));
    writeResourceSpans(writer, this.#resource, scopes);
    for (const batch of this.#scopes) batch.writer.pos = 0;
    this.#requestSize = Math.max(this.#requestSize, writer.pos + (writer.pos >>> 3));
    this.#waiting.push({ body: writer.buffer.subarray(0, writer.pos), spanCount: this.#open, buffer: writer.buffer });
    this.#waitingSpans += this.#open;
    this.#open = 0;
    if (this.#dropped > 0) {
      diag.warn('spans were dropped because the export queue was full (OTEL_BSP_MAX_QUEUE_SIZE)', this.#dropped);
      this.#dropped = 0;
    }
    this.#next();
  }

  /** Hands the next waiting batch to the exporter, unless one is being sent. */
  #next(): void {
    if (this.#exporting) return;
    const batch = this.#waiting.shift();
    if (batch === undefined) {
      for (const resolve of this.#idle.splice(0)) resolve();
      return;
    }
    this.#exporting = true;
    this.#waitingSpans -= batch.spanCount;
    let finished = false;
    const finish = (sent: boolean) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      // Only a batch the exporter is done with: one given up on for its timeout may still be being sent.
      if (sent) this.#spareBuffer = batch.buffer;
      this.#exporting = false;
      this.#next();
    };
    // As the SDK's processor: an export that outlasts the timeout no longer holds the batches behind it.
    const timer = setTimeout(() => {
      diag.warn('an export took longer than OTEL_BSP_EXPORT_TIMEOUT; the next batch is sent', `${batch.spanCount} spans`);
      finish(false);
    }, this.#settings.exportTimeoutMs);
    timer.unref();
    this.#export.send(batch, () => finish(true));
  }
}
