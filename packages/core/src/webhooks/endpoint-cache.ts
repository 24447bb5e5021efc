import type { Clock } from '../ports/clock.js';
import type { EndpointHealth, EndpointWithSecrets, WebhookEndpointRepository } from '../ports/webhook-endpoint-repository.js';

/** Most endpoints kept at once; past it, the oldest go first (a store serving more of them at once reads the rest from storage). */
const MAX_ENTRIES = 10_000;

interface Entry {
  readonly found: EndpointWithSecrets;
  /** Read again from storage from this time on (epoch ms). */
  readonly until: number;
}

/**
 * Tenants' endpoints as the dispatcher reads them at each attempt, kept for up to `ttlMs` so that an attempt costs no storage
 * read. Whoever changes an endpoint calls `forget` before the change is acknowledged (see `forgettingChanges`), and other
 * processes' changes arrive through the storage's `watch`; the time limit bounds a change whose notice was lost. A read
 * that was in flight when something was forgotten is used for its own attempt but not kept, so it cannot put back what
 * a change replaced. It also knows each kept endpoint's health (as read, then as this process's attempt notes left it), so that a
 * success on an endpoint without a failing streak needs no write (see `forgettingChanges`).
 */
export class EndpointCache {
  readonly #endpoints: WebhookEndpointRepository;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #entries = new Map<string, Entry>();
  /** Reads in flight, shared by the attempts that want the same endpoint meanwhile. */
  readonly #reads = new Map<string, Promise<EndpointWithSecrets | undefined>>();
  /** Counts `forget` calls: a read that started before one is not kept. */
  #generation = 0;

  constructor(endpoints: WebhookEndpointRepository, clock: Clock, ttlMs: number) {
    this.#endpoints = endpoints;
    this.#clock = clock;
    this.#ttlMs = ttlMs;
  }

  /** The endpoint with its secrets, as `WebhookEndpointRepository.find` answers (kept, or read now); rejects when storage fails. */
  find(id: string): Promise<EndpointWithSecrets | undefined> {
    const entry = this.#entries.get(id);
    if (entry !== undefined) {
      if (entry.until > this.#clock.now()) return Promise.resolve(entry.found);
      this.#entries.delete(id);
    }
    const reading = this.#reads.get(id);
    if (reading !== undefined) return reading;
    const read = this.#read(id);
    this.#reads.set(id, read);
    const done = () => {
      if (this.#reads.get(id) === read) this.#reads.delete(id);
    };
    read.then(done, done);
    return read;
  }

  /** The kept endpoint's health, as read or as this process's latest note of it left it; `undefined` when not kept or its storage does not report it. */
  health(id: string): EndpointHealth | undefined {
    const entry = this.#entries.get(id);
    return entry !== undefined && entry.until > this.#clock.now() ? entry.found.health : undefined;
  }

  /**
   * Keeps the health a note of the endpoint's attempt returned (`undefined`: the endpoint is gone), if its read reported one. A read
   * in flight may predate the note: it is used for its own attempt but not kept.
   */
  noteHealth(id: string, health: EndpointHealth | undefined): void {
    if (this.#reads.delete(id)) this.#generation++;
    const entry = this.#entries.get(id);
    if (entry?.found.health === undefined) return;
    if (health === undefined) this.#entries.delete(id);
    else this.#entries.set(id, { ...entry, found: { ...entry.found, health } });
  }

  /** Drops what is kept of the endpoint (of every endpoint when no id is given), and whatever reads in flight would keep. */
  forget(id?: string): void {
    this.#generation++;
    if (id === undefined) {
      this.#entries.clear();
      this.#reads.clear();
    } else {
      this.#entries.delete(id);
      this.#reads.delete(id);
    }
  }

  async #read(id: string): Promise<EndpointWithSecrets | undefined> {
    const generation = this.#generation;
    const found = await this.#endpoints.find(id);
    // Not kept when missing (its deliveries fail once, and a later endpoint cannot take a deleted one's id) or forgotten meanwhile.
    if (found === undefined || this.#ttlMs <= 0 || generation !== this.#generation) return found;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(id, { found, until: this.#clock.now() + this.#ttlMs });
    return found;
  }
}

/**
 * The repository, with `cache` told of every change an endpoint's deliveries depend on (URL, headers, rate limit, status,
 * secrets, deletion) once storage answered and before the caller hears of it, whether the change succeeded or failed (a
 * failed one may still have committed). Creates change nothing it keeps.
 *
 * Attempt notes go through the cache too: a success on an endpoint whose known health has no failing streak would change
 * nothing, so it is answered without a write, which spares the common attempt a storage round trip. A streak another process
 * started is announced by the storage's `watch` (the cache forgets the endpoint, and the next read shows the streak, so the next
 * success here clears it); without `watch`, or with its notice lost, the cache's time limit bounds how long successes here leave
 * that streak standing. Failures are always written.
 */
export function forgettingChanges(endpoints: WebhookEndpointRepository, cache: EndpointCache): WebhookEndpointRepository {
  const forgetting =
    <A extends unknown[], R>(change: (...args: A) => Promise<R>, idOf: (...args: A) => string) =>
    async (...args: A): Promise<R> => {
      try {
        return await change(...args);
      } finally {
        cache.forget(idOf(...args));
      }
    };
  return {
    create: (endpoint, maxPerTenant) => endpoints.create(endpoint, maxPerTenant),
    get: (tenant, id) => endpoints.get(tenant, id),
    list: (tenant, query) => endpoints.list(tenant, query),
    update: forgetting(endpoints.update.bind(endpoints), (_tenant, id) => id),
    delete: forgetting(endpoints.delete.bind(endpoints), (_tenant, id) => id),
    secrets: (tenant, id) => endpoints.secrets(tenant, id),
    rotateSecret: forgetting(endpoints.rotateSecret.bind(endpoints), (_tenant, id) => id),
    find: (id) => endpoints.find(id),
    listAll: (query) => endpoints.listAll(query),
    setStatus: forgetting(endpoints.setStatus.bind(endpoints), (id) => id),
    noteAttempt: async (id, note) => {
      const known = cache.health(id);
      if (note.succeeded && known !== undefined && known.failingSince === undefined && known.exhaustedAt === undefined) return known;
      const health = await endpoints.noteAttempt(id, note);
      cache.noteHealth(id, health);
      return health;
    },
    ...(endpoints.watch ? { watch: endpoints.watch.bind(endpoints) } : {}),
  };
}
