/** One attempt in flight. */
interface Running {
  readonly deliveryId: string;
  readonly endpointId: string;
  readonly controller: AbortController;
}

/**
 * The attempts in flight, under a global and a per-endpoint cap, each with
 * the controller that aborts it at shutdown. The per-endpoint cap counts
 * requests the endpoint has not answered yet; the global one counts attempts
 * until their outcome is recorded.
 */
export class AttemptSlots {
  readonly #concurrency: number;
  readonly #perEndpoint: number;
  readonly #running = new Map<Promise<void>, Running>();
  readonly #perEndpointCount = new Map<string, number>();

  constructor(concurrency: number, perEndpoint: number) {
    this.#concurrency = Math.max(1, concurrency);
    this.#perEndpoint = Math.max(1, perEndpoint);
  }

  /** Attempts in flight. */
  get size(): number {
    return this.#running.size;
  }

  /** Slots left under the global cap. */
  get free(): number {
    return this.#concurrency - this.#running.size;
  }

  /** The per-endpoint cap. */
  get perEndpoint(): number {
    return this.#perEndpoint;
  }

  /** Whether one more attempt to this endpoint fits its cap. */
  hasRoomFor(endpointId: string): boolean {
    return (this.#perEndpointCount.get(endpointId) ?? 0) < this.#perEndpoint;
  }

  /** Attempts that would still fit, summed over these endpoints. */
  roomFor(endpointIds: readonly string[]): number {
    let room = 0;
    for (const id of endpointIds) room += Math.max(0, this.#perEndpoint - (this.#perEndpointCount.get(id) ?? 0));
    return room;
  }

  /** Endpoints at their cap. */
  fullEndpoints(): string[] {
    const full: string[] = [];
    for (const [endpointId, count] of this.#perEndpointCount) if (count >= this.#perEndpoint) full.push(endpointId);
    return full;
  }

  /**
   * Runs `attempt` in a slot until it settles. The attempt calls `answered`
   * once the endpoint is done with it (the request finished): its share of
   * the endpoint's cap frees then, while the outcome is still being recorded,
   * since the cap protects the receiver and recording does not load it. The
   * global slot is held until `attempt` settles. `onFreed` runs after each
   * freeing: when the endpoint's share frees and when the slot does.
   */
  run(deliveryId: string, endpointId: string, attempt: (signal: AbortSignal, answered: () => void) => Promise<void>, onFreed: () => void): void {
    const controller = new AbortController();
    this.#perEndpointCount.set(endpointId, (this.#perEndpointCount.get(endpointId) ?? 0) + 1);
    let holdsEndpoint = true;
    /** Gives back the endpoint's share once; true when this call did. */
    const leaveEndpoint = (): boolean => {
      if (!holdsEndpoint) return false;
      holdsEndpoint = false;
      const count = (this.#perEndpointCount.get(endpointId) ?? 1) - 1;
      if (count > 0) this.#perEndpointCount.set(endpointId, count);
      else this.#perEndpointCount.delete(endpointId);
      return true;
    };
    const answered = (): void => {
      if (leaveEndpoint()) onFreed();
    };
    const running: Promise<void> = attempt(controller.signal, answered).finally(() => {
      this.#running.delete(running);
      leaveEndpoint();
      onFreed();
    });
    this.#running.set(running, { deliveryId, endpointId, controller });
  }

  /** Resolves once every attempt in flight has settled, or after `timeoutMs`, whichever is first; `true` when none is left. */
  async settled(timeoutMs: number): Promise<boolean> {
    if (this.#running.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([Promise.allSettled([...this.#running.keys()]), timedOut]);
    clearTimeout(timer);
    return this.#running.size === 0;
  }

  /** Aborts every attempt in flight (their transports stop and they are recorded as interrupted). */
  abortAll(): void {
    for (const { controller } of this.#running.values()) controller.abort();
  }

  /** Ids of the deliveries still in flight. */
  deliveryIds(): string[] {
    return [...this.#running.values()].map((running) => running.deliveryId);
  }
}
