import { setTimeout as sleep } from 'node:timers/promises';

interface Running {
  readonly deliveryId: string;
  readonly endpointId: string;
  readonly controller: AbortController;
}

export interface SlotCaps {
  readonly concurrency: number;
  /** Most attempts in flight to one endpoint that is not slow. */
  readonly perEndpoint: number;
  /** Most attempts in flight to the endpoints of one owner (a tenant). */
  readonly perOwner: number;
  /** An attempt that runs this long (ms) makes its endpoint slow, at once, until an attempt to it answers sooner. */
  readonly slowAfterMs: number;
}

/** A slow endpoint keeps this many attempts going: enough to notice it has recovered, too few to matter to anyone else. */
export const SLOW_ENDPOINT_CONCURRENCY = 2;

/** Endpoints whose speed is remembered; the oldest memory goes first (an endpoint forgotten is simply unproven again). */
const REMEMBERED_ENDPOINTS = 10_000;

/**
 * The attempts in flight (aborted at shutdown) under caps that keep a few endpoints from stalling everyone: global (until recorded), per
 * endpoint (until it answers; 2 while slow), per owner, and half the slots at most for endpoints not known to be prompt, however many hang.
 */
export class AttemptSlots {
  readonly #caps: SlotCaps;
  readonly #slowShare: number;
  readonly #running = new Map<Promise<void>, Running>();
  /** Requests not yet answered, per endpoint. */
  readonly #perEndpointCount = new Map<string, number>();
  /** Attempts in flight per owner, with every endpoint of theirs seen meanwhile (passed over while the owner is at its cap). */
  readonly #owners = new Map<string, { count: number; readonly endpoints: Set<string> }>();
  readonly #fast = new Map<string, boolean>();
  /** Attempts in flight that count against the share of endpoints not known to be fast. */
  #unproven = 0;

  constructor(caps: SlotCaps) {
    const concurrency = Math.max(1, caps.concurrency);
    const perEndpoint = Math.max(1, caps.perEndpoint);
    this.#caps = { concurrency, perEndpoint, perOwner: Math.max(1, caps.perOwner), slowAfterMs: caps.slowAfterMs };
    this.#slowShare = Math.max(Math.min(perEndpoint, concurrency), Math.floor(concurrency / 2));
  }

  get size(): number {
    return this.#running.size;
  }

  get free(): number {
    return this.#caps.concurrency - this.#running.size;
  }

  /** The cap of an endpoint that is not slow. */
  get perEndpoint(): number {
    return this.#caps.perEndpoint;
  }

  /** Whether one more attempt to this endpoint of this owner fits every cap. */
  hasRoomFor(endpointId: string, owner: string): boolean {
    if (this.free <= 0 || (this.#perEndpointCount.get(endpointId) ?? 0) >= this.#endpointCap(endpointId)) return false;
    if ((this.#owners.get(owner)?.count ?? 0) >= this.#caps.perOwner) return false;
    return this.#fast.get(endpointId) === true || this.#unproven < this.#slowShare;
  }

  /** Attempts that would still fit the endpoints' own caps, summed over these endpoints. */
  roomFor(endpointIds: readonly string[]): number {
    let room = 0;
    for (const id of endpointIds) room += Math.max(0, this.#endpointCap(id) - (this.#perEndpointCount.get(id) ?? 0));
    return room;
  }

  /** Endpoints known to have no room now (at their cap, their owner at its cap, or slow while the share is taken): not worth claiming for. */
  fullEndpoints(): string[] {
    const full = new Set<string>();
    for (const [endpointId, count] of this.#perEndpointCount) if (count >= this.#endpointCap(endpointId)) full.add(endpointId);
    for (const { count, endpoints } of this.#owners.values()) if (count >= this.#caps.perOwner) for (const id of endpoints) full.add(id);
    if (this.#unproven >= this.#slowShare) for (const [endpointId, fast] of this.#fast) if (!fast) full.add(endpointId);
    return [...full];
  }

  /** Notes an endpoint of an owner with attempts in flight, so that it is passed over while the owner is at its cap. */
  noteOwner(endpointId: string, owner: string): void {
    this.#owners.get(owner)?.endpoints.add(endpointId);
  }

  /** Records how long an answered attempt to the endpoint took: it is slow from `slowAfterMs` on, fast below. */
  observe(endpointId: string, durationMs: number): void {
    this.#remember(endpointId, durationMs < this.#caps.slowAfterMs);
  }

  /** Runs `attempt` in a slot until it settles; its `answered()` frees the endpoint's and owner's share while the outcome is recorded. `onFreed` runs after each freeing. */
  run(deliveryId: string, endpointId: string, owner: string, attempt: (signal: AbortSignal, answered: () => void) => Promise<void>, onFreed: () => void): void {
    const controller = new AbortController();
    this.#perEndpointCount.set(endpointId, (this.#perEndpointCount.get(endpointId) ?? 0) + 1);
    const owned = this.#owners.get(owner) ?? { count: 0, endpoints: new Set<string>() };
    owned.count++;
    owned.endpoints.add(endpointId);
    this.#owners.set(owner, owned);
    let unproven = this.#fast.get(endpointId) !== true;
    if (unproven) this.#unproven++;
    // Still running at the slow mark: the endpoint is slow now, not when the attempt times out.
    const overdue = setTimeout(() => {
      this.#remember(endpointId, false);
      if (!unproven) this.#unproven++;
      unproven = true;
    }, this.#caps.slowAfterMs);
    overdue.unref?.();
    let holdsEndpoint = true;
    /** Gives back the endpoint's and owner's share once; true when this call did. */
    const leaveEndpoint = (): boolean => {
      if (!holdsEndpoint) return false;
      holdsEndpoint = false;
      clearTimeout(overdue);
      if (unproven) this.#unproven--;
      const left = this.#perEndpointCount.get(endpointId)! - 1;
      if (left > 0) this.#perEndpointCount.set(endpointId, left);
      else this.#perEndpointCount.delete(endpointId);
      if (--owned.count === 0) this.#owners.delete(owner);
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
    const timer = new AbortController();
    await Promise.race([Promise.allSettled([...this.#running.keys()]), sleep(timeoutMs, undefined, { signal: timer.signal }).catch(() => {})]);
    timer.abort();
    return this.#running.size === 0;
  }

  /** Aborts every attempt in flight (their transports stop and they are recorded as interrupted). */
  abortAll(): void {
    for (const { controller } of this.#running.values()) controller.abort();
  }

  deliveryIds(): string[] {
    return [...this.#running.values()].map((running) => running.deliveryId);
  }

  slowEndpoints(): string[] {
    return [...this.#fast].filter(([, fast]) => !fast).map(([endpointId]) => endpointId);
  }

  #endpointCap(endpointId: string): number {
    return this.#fast.get(endpointId) === false ? Math.min(SLOW_ENDPOINT_CONCURRENCY, this.#caps.perEndpoint) : this.#caps.perEndpoint;
  }

  #remember(endpointId: string, fast: boolean): void {
    this.#fast.delete(endpointId);
    this.#fast.set(endpointId, fast);
    if (this.#fast.size > REMEMBERED_ENDPOINTS) this.#fast.delete(this.#fast.keys().next().value!);
  }
}
