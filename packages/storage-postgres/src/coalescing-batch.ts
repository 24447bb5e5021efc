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
}

/**
 * Runs concurrent calls as one statement: the first call starts a batch at the end of the current turn; calls made
 * while a batch is in flight go together as the next one (no timer, no wait when idle).
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
      const outputs = await this.#options.run(batch.map((waiting) => waiting.input));
      if (outputs.length !== batch.length) throw new Error(`a batch of ${batch.length} gave ${outputs.length} results`);
      batch.forEach((waiting, index) => waiting.resolve(outputs[index]!));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    } finally {
      this.#running = false;
      if (this.#queue.length > 0) this.#schedule();
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
