/**
 * Group commit: writes submitted in one turn of the event loop share one transaction (`setImmediate`), since each
 * commit writes a whole log page per b-tree touched. An input's own error (a constraint) does not fail the others:
 * each input of that group is then committed on its own. Any other error (locked, full, files replaced) fails it.
 */
export interface GroupCommitOptions<Input, Output> {
  /** Runs the inputs in one transaction and returns each one's output, in order; throws when the transaction rolled back. */
  readonly commit: (inputs: readonly Input[]) => readonly Output[];
  /** Whether an error thrown by `commit` can be caused by one input alone, so that the others are committed without it. */
  readonly isInputError: (error: unknown) => boolean;
  /** Most inputs per transaction (bounds how long one holds the event loop); more wait for the next turn. */
  readonly maxGroup: number;
}

interface Submitted<Input, Output> {
  readonly input: Input;
  readonly resolve: (output: Output) => void;
  readonly reject: (error: unknown) => void;
}

export class GroupCommit<Input, Output> {
  readonly #options: GroupCommitOptions<Input, Output>;
  #queue: Submitted<Input, Output>[] = [];
  #scheduled = false;

  constructor(options: GroupCommitOptions<Input, Output>) {
    this.#options = options;
  }

  /** Resolves with the input's output once the transaction that holds it has committed; rejects with what failed it. */
  submit(input: Input): Promise<Output> {
    return new Promise<Output>((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#schedule();
    });
  }

  /** Commits everything submitted so far, now: before the database closes. */
  flush(): void {
    while (this.#queue.length > 0) this.#commitNext();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#commitNext();
      if (this.#queue.length > 0) this.#schedule();
    });
  }

  #commitNext(): void {
    if (this.#queue.length === 0) return;
    const { maxGroup } = this.#options;
    const group = this.#queue.length <= maxGroup ? this.#queue : this.#queue.slice(0, maxGroup);
    this.#queue = group === this.#queue ? [] : this.#queue.slice(maxGroup);
    let outputs: readonly Output[];
    try {
      outputs = this.#options.commit(group.map((submitted) => submitted.input));
    } catch (error) {
      if (group.length > 1 && this.#options.isInputError(error)) for (const submitted of group) this.#commitAlone(submitted);
      else for (const submitted of group) submitted.reject(error);
      return;
    }
    group.forEach((submitted, index) => submitted.resolve(outputs[index]!));
  }

  #commitAlone(submitted: Submitted<Input, Output>): void {
    try {
      submitted.resolve(this.#options.commit([submitted.input])[0]!);
    } catch (error) {
      submitted.reject(error);
    }
  }
}
