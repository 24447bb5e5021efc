interface Waiting<In, Out> {
  readonly input: In;
  readonly resolve: (output: Out) => void;
  readonly reject: (error: unknown) => void;
}

export interface CoalescingBatchOptions<In, Out> {
  readonly run: (inputs: readonly In[]) => Promise<readonly Out[]>;
  /** Inputs with equal keys never share a batch (a later one waits for the next). */
  readonly keyOf: (input: In) => string;
  readonly maxSize: number;
  /** Whether a batch that failed with this error is run again call by call (an input it refused), or fails whole (the database is away). @default always */
  readonly isolate?: (error: unknown) => boolean;
}

/**
 * Runs concurrent calls as one statement: the first call starts a batch at the end of the current turn; calls made
 * while a batch is in flight go together as the next one (no timer, no wait when idle). A batch that fails is run
 * again call by call (unless `isolate` says the failure is not an input's), so one bad input fails its own call only,
 * never the others that happened to share its batch.
 */
export class CoalescingBatch<In, Out> {
  readonly #options: CoalescingBatchOptions<In, Out>;
  #queue: Waiting<In, Out>[] = [];
  #running = false;
  #scheduled = false;

  constructor(options: CoalescingBatchOptions<In, Out>) {
    this.#options = options;
  }

  submit(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#running || this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    if (this.#running || this.#queue.length === 0) return;
    this.#running = true;
    const batch = this.#take();
    try {
      if (!(await this.#settle(batch))) await Promise.all(batch.map((waiting) => this.#settle([waiting])));
    } finally {
      this.#running = false;
      if (this.#queue.length > 0) this.#schedule();
    }
  }

  /** Runs the batch and settles its calls; `false` (settling none) when a batch of several failed in a way each may not, to be run again alone. */
  async #settle(batch: readonly Waiting<In, Out>[]): Promise<boolean> {
    try {
      const outputs = await this.#options.run(batch.map((waiting) => waiting.input));
      if (outputs.length !== batch.length) throw new Error(`a batch of ${batch.length} gave ${outputs.length} results`);
      batch.forEach((waiting, index) => waiting.resolve(outputs[index]!));
      return true;
    } catch (error) {
      if (batch.length > 1 && (this.#options.isolate?.(error) ?? true)) return false;
      for (const waiting of batch) waiting.reject(error);
      return true;
    }
  }

  /** The next batch: queued calls in order, up to the size, skipping (and keeping) repeats of a key already taken. */
  #take(): Waiting<In, Out>[] {
    const { keyOf, maxSize } = this.#options;
    const taken: Waiting<In, Out>[] = [];
    const left: Waiting<In, Out>[] = [];
    const keys = new Set<string>();
    for (const waiting of this.#queue) {
      const key = keyOf(waiting.input);
      if (taken.length < maxSize && !keys.has(key)) {
        keys.add(key);
        taken.push(waiting);
      } else left.push(waiting);
    }
    this.#queue = left;
    return taken;
  }
}
