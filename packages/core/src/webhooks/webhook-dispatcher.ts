import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import type { PlantEventBus, WebhookAttemptOutcome } from '../events/plant-events.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ClaimedDelivery, WebhookOutbox } from '../ports/webhook-outbox.js';
import type { WebhookResponse, WebhookTransport } from '../ports/webhook-transport.js';
import { RetryPolicy } from './retry-policy.js';
import { signWebhook } from './webhook-signature.js';
import { secretKey, subscriptionMatches, type WebhookSubscription } from './webhook-subscription.js';

/** Default delays between attempts: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];

/** `plant-store/<version of @plant-store/core>`, the default `user-agent`. */
export const DEFAULT_USER_AGENT = `plant-store/${packageVersion()}`;

export interface WebhookDispatcherOptions {
  readonly outbox: WebhookOutbox;
  readonly transport: WebhookTransport;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Current subscriptions; a delivery is signed with the secret of the subscription whose url is its endpoint. */
  readonly subscriptions: readonly WebhookSubscription[];
  /** Delays in ms between attempts; after the last, the delivery fails. @default DEFAULT_RETRY_SCHEDULE */
  readonly retrySchedule?: readonly number[];
  /** Per-attempt timeout in ms. @default 15000 */
  readonly timeoutMs?: number;
  /** `user-agent` header. @default DEFAULT_USER_AGENT (`plant-store/<version>`) */
  readonly userAgent?: string;
  /** Most attempts in flight at once, over all endpoints. @default 64 */
  readonly concurrency?: number;
  /** Most attempts in flight at once to one endpoint, so a slow endpoint cannot take every slot. @default 16 */
  readonly perEndpointConcurrency?: number;
  /**
   * How long a claim is held before another dispatcher may take the delivery
   * over. Must exceed an attempt (`timeoutMs`) plus recording it; it is also
   * how long deliveries in flight at a crash wait before a restarted service
   * retries them. @default timeoutMs + 10000
   */
  readonly leaseMs?: number;
  /** Fallback poll in ms for work this dispatcher was not woken for (queued by other processes, expired leases). @default 1000 */
  readonly pollIntervalMs?: number;
  /** Longest `Retry-After` (429/503) honoured, in ms. @default 3600000 */
  readonly maxRetryAfterMs?: number;
  /** Each retry delay is spread by up to ± this fraction. 0 disables (tests). @default 0.1 */
  readonly jitter?: number;
  /** Most deliveries claimed per storage round trip. @default concurrency */
  readonly batchSize?: number;
  /** How long `stop()` waits for in-flight attempts; the leases of those still running then expire and they are retried. @default 2000 */
  readonly stopTimeoutMs?: number;
  /** Lease owner id, unique per dispatcher. @default `<host>:<pid>:<random>` */
  readonly owner?: string;
  /** Receives `webhook.attempted` after each recorded attempt (metrics). @default none */
  readonly events?: PlantEventBus;
}

/** A subscription with its signing key decoded once. */
interface Target {
  readonly subscription: WebhookSubscription;
  readonly key: Buffer;
}

const MAX_TIMER_MS = 2_147_483_647;

/**
 * Sends queued deliveries through the transport. Woken right after a commit
 * (so the first attempt is prompt), it claims due deliveries in batches as
 * leases, runs the attempts concurrently under a global and a per-endpoint
 * cap, records each attempt and its outcome, and claims more as slots free
 * up. A timer at the earliest known due time and a slow fallback poll pick
 * up retries and work queued elsewhere. Leases make it safe to run several
 * dispatchers (stores or processes) on one outbox: an attempt is made by the
 * lease holder only. Storage failures are logged and retried, never thrown.
 */
export class WebhookDispatcher {
  readonly #outbox: WebhookOutbox;
  readonly #transport: WebhookTransport;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #targets = new Map<string, Target[]>();
  readonly #policy: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #userAgent: string;
  readonly #concurrency: number;
  readonly #perEndpoint: number;
  readonly #leaseMs: number;
  readonly #pollIntervalMs: number;
  readonly #batchSize: number;
  readonly #stopTimeoutMs: number;
  readonly #owner: string;
  readonly #events: PlantEventBus | undefined;

  #state: 'idle' | 'running' | 'stopped' = 'idle';
  readonly #inFlight = new Set<Promise<void>>();
  readonly #perEndpointCount = new Map<string, number>();
  #pumpScheduled = false;
  #pumping: Promise<void> | undefined;
  #pumpAgain = false;
  /** Ask storage for its next due time after the next claim pass (start, poll, timer, errors). */
  #checkDue = true;
  /** The last claim pass stopped because of caps, so due work may be waiting for a slot (a completion will wake us). */
  #capped = false;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  #poll: NodeJS.Timeout | undefined;
  #stopping: Promise<void> | undefined;

  constructor(options: WebhookDispatcherOptions) {
    this.#outbox = options.outbox;
    this.#transport = options.transport;
    this.#clock = options.clock;
    this.#logger = options.logger;
    for (const subscription of options.subscriptions) {
      const key = secretKey(subscription.secret);
      if (!key) continue; // unreachable: subscriptions are validated by createPlantStore
      const targets = this.#targets.get(subscription.url) ?? [];
      targets.push({ subscription, key });
      this.#targets.set(subscription.url, targets);
    }
    this.#timeoutMs = options.timeoutMs ?? 15_000;
    this.#policy = new RetryPolicy({
      schedule: options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE,
      jitter: options.jitter,
      maxRetryAfterMs: options.maxRetryAfterMs,
    });
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#concurrency = Math.max(1, options.concurrency ?? 64);
    this.#perEndpoint = Math.max(1, options.perEndpointConcurrency ?? 16);
    this.#leaseMs = options.leaseMs ?? this.#timeoutMs + 10_000;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.#batchSize = Math.max(1, options.batchSize ?? this.#concurrency);
    this.#stopTimeoutMs = options.stopTimeoutMs ?? 2_000;
    this.#owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
    this.#events = options.events;
  }

  /** The lease owner id of this dispatcher. */
  get owner(): string {
    return this.#owner;
  }

  /** Starts taking work, including what is already due (idempotent; no effect after `stop()`). */
  start(): void {
    if (this.#state !== 'idle') return;
    this.#state = 'running';
    this.#poll = setInterval(() => {
      this.#checkDue = true;
      this.wake();
    }, this.#pollIntervalMs);
    this.#poll.unref();
    this.wake();
  }

  /** Looks for due work now (called after a commit that queued deliveries). Cheap: wakes in the same turn coalesce. */
  wake(): void {
    if (this.#state !== 'running' || this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  /**
   * Stops taking work and waits (up to `stopTimeoutMs`) for in-flight
   * attempts; claimed deliveries not yet started are released. Idempotent.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#state = 'stopped';
    clearInterval(this.#poll);
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#pumping; // a claim in progress releases what it got (the state is no longer running)
    if (this.#inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#stopTimeoutMs);
    });
    await Promise.race([Promise.allSettled([...this.#inFlight]), timedOut]);
    clearTimeout(timer);
    if (this.#inFlight.size > 0) {
      this.#logger.warn('webhook dispatcher stopped with attempts still running; they will be retried when their lease ends', {
        inFlight: this.#inFlight.size,
      });
    }
  }

  /** Runs claim passes until no wake is pending; only one runs at a time. */
  #pump(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = (async () => {
      try {
        do {
          this.#pumpAgain = false;
          await this.#claimAll();
          if (this.#checkDue && this.#state === 'running') {
            this.#checkDue = false;
            await this.#armForNextDue();
          }
        } while (this.#pumpAgain && this.#state === 'running');
      } catch (error) {
        this.#logger.error('webhook dispatcher: storage failed, will retry', { error: describe(error) });
        this.#checkDue = true;
        this.#scheduleAt(this.#clock.now() + Math.min(this.#pollIntervalMs, 1_000));
      } finally {
        this.#pumping = undefined;
      }
    })();
  }

  /** Claims and starts due deliveries while there are free slots and work. */
  async #claimAll(): Promise<void> {
    this.#capped = false;
    while (this.#state === 'running') {
      const free = this.#concurrency - this.#inFlight.size;
      if (free <= 0) {
        this.#capped = true;
        return;
      }
      let knownRoom = 0;
      for (const url of this.#targets.keys()) knownRoom += Math.max(0, this.#perEndpoint - (this.#perEndpointCount.get(url) ?? 0));
      // Every subscribed endpoint is at its cap (a receiver that is slow or
      // hangs): a claim could only find deliveries to endpoints no
      // subscription knows any more, and would scan the whole backlog to skip
      // the rest, on every commit's wake. A finishing attempt wakes us when a
      // slot frees; the poll and the due-time timer (checkDue) still claim
      // for unknown endpoints.
      if (knownRoom === 0 && !this.#checkDue) {
        this.#capped = true;
        return;
      }
      const skipEndpoints: string[] = [];
      for (const [endpoint, count] of this.#perEndpointCount) if (count >= this.#perEndpoint) skipEndpoints.push(endpoint);
      // Claim no more than the endpoints can take, so a busy single endpoint
      // does not make us claim (and then release) a whole batch every time.
      // The extra cap is room for deliveries to endpoints no subscription knows (they fail at once).
      const limit = Math.min(free, this.#batchSize, knownRoom + this.#perEndpoint);
      const claimed = await this.#outbox.claimDue({
        owner: this.#owner,
        now: this.#clock.now(),
        leaseMs: this.#leaseMs,
        limit,
        skipEndpoints,
      });
      const surplus: string[] = [];
      for (const delivery of claimed) {
        if (this.#state === 'running' && (this.#perEndpointCount.get(delivery.endpoint) ?? 0) < this.#perEndpoint) {
          this.#launch(delivery);
        } else {
          surplus.push(delivery.id);
        }
      }
      if (surplus.length > 0) await this.#outbox.release(surplus, this.#owner);
      if (skipEndpoints.length > 0 || surplus.length > 0) this.#capped = true;
      if (claimed.length < limit) return;
    }
  }

  /** Arms the timer for the earliest due time storage knows (retries, expired leases, work from elsewhere). */
  async #armForNextDue(): Promise<void> {
    const next = await this.#outbox.nextDueAt();
    if (next === undefined || this.#state !== 'running') return;
    const now = this.#clock.now();
    if (next > now) this.#scheduleAt(next);
    // Due but not claimed: waiting for a slot, and the completion that frees it wakes us.
    else if (!this.#capped) this.#scheduleAt(now + 5);
  }

  /** Makes sure a pump runs at `at` (epoch ms) at the latest. */
  #scheduleAt(at: number): void {
    if (this.#state !== 'running' || (this.#timer && this.#timerAt <= at)) return;
    clearTimeout(this.#timer);
    // +1 ms: the timer runs on a monotonic clock, the due time is wall-clock milliseconds.
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, at - this.#clock.now()) + 1);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      this.#checkDue = true;
      this.wake();
    }, delay);
    this.#timer.unref();
  }

  #launch(delivery: ClaimedDelivery): void {
    const endpoint = delivery.endpoint;
    this.#perEndpointCount.set(endpoint, (this.#perEndpointCount.get(endpoint) ?? 0) + 1);
    const attempt = this.#attempt(delivery)
      .catch((error: unknown) => {
        // The lease runs out and the delivery is tried again: at-least-once.
        this.#logger.error('webhook dispatcher: could not record an attempt, will retry', {
          deliveryId: delivery.id,
          error: describe(error),
        });
      })
      .finally(() => {
        this.#inFlight.delete(attempt);
        const count = (this.#perEndpointCount.get(endpoint) ?? 1) - 1;
        if (count > 0) this.#perEndpointCount.set(endpoint, count);
        else this.#perEndpointCount.delete(endpoint);
        this.wake();
      });
    this.#inFlight.add(attempt);
  }

  /** One attempt: sign, send, decide, record. */
  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = this.#clock.now();
    const target = this.#target(delivery);
    if (!target) {
      await this.#record(delivery, { at: startedAt, durationMs: 0, error: 'no subscription for this endpoint' }, { status: 'failed' });
      this.#events?.emit('webhook.attempted', { outcome: 'failed', durationMs: 0 });
      return;
    }
    const timestamp = Math.floor(startedAt / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': this.#userAgent,
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook({ secret: target.key, id: delivery.id, timestamp, body: delivery.payload }),
    };
    let response: WebhookResponse;
    try {
      response = await this.#transport.send({ url: delivery.endpoint, headers, body: delivery.payload, timeoutMs: this.#timeoutMs });
    } catch (error) {
      // The port says send never rejects; a transport that does still counts as one failed attempt.
      response = { error: `transport failed: ${describe(error)}` };
    }
    const finishedAt = this.#clock.now();
    const decision = this.#policy.decide(delivery.attemptCount + 1, response, finishedAt);
    const attempt = {
      at: startedAt,
      durationMs: Math.max(0, finishedAt - startedAt),
      ...(response.statusCode !== undefined ? { statusCode: response.statusCode } : {}),
      ...(decision.error !== undefined ? { error: decision.error } : {}),
    };
    await this.#record(delivery, attempt, decision.outcome);
    this.#events?.emit('webhook.attempted', { outcome: attemptOutcome(decision.outcome.status, response), durationMs: attempt.durationMs });
    if (decision.outcome.status === 'pending') this.#scheduleAt(decision.outcome.nextAttemptAt);
    this.#logOutcome(delivery, decision.outcome.status, decision.error);
  }

  async #record(
    delivery: ClaimedDelivery,
    attempt: Parameters<WebhookOutbox['recordAttempt']>[2],
    outcome: Parameters<WebhookOutbox['recordAttempt']>[3],
  ): Promise<void> {
    if (!(await this.#outbox.recordAttempt(delivery.id, this.#owner, attempt, outcome))) {
      // The lease ran out and another dispatcher took over; its attempt counts, ours is not recorded.
      this.#logger.warn('webhook attempt not recorded: lease lost', { deliveryId: delivery.id });
    }
  }

  /** The subscription a delivery goes to: same url, preferring one that covers its tenant (urls may repeat with other secrets). */
  #target(delivery: ClaimedDelivery): Target | undefined {
    const targets = this.#targets.get(delivery.endpoint);
    return targets?.find((target) => subscriptionMatches(target.subscription, delivery.tenant)) ?? targets?.[0];
  }

  #logOutcome(delivery: ClaimedDelivery, status: 'delivered' | 'pending' | 'failed', error: string | undefined): void {
    if (status === 'delivered') {
      this.#logger.debug('webhook delivered', { deliveryId: delivery.id, attempt: delivery.attemptCount + 1 });
      return;
    }
    // Only the origin: URLs may carry credentials in their path or query.
    const fields = { deliveryId: delivery.id, endpoint: originOf(delivery.endpoint), attempt: delivery.attemptCount + 1, error };
    if (status === 'pending') this.#logger.info('webhook attempt failed, will retry', fields);
    else this.#logger.warn('webhook delivery failed, no more attempts', fields);
  }
}

/** The outcome as metrics name it: a 410 is told apart from retries running out. */
function attemptOutcome(status: 'delivered' | 'pending' | 'failed', response: WebhookResponse): WebhookAttemptOutcome {
  if (status === 'pending') return 'retry';
  if (status === 'failed' && response.statusCode === 410) return 'gone';
  return status;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
}

// Read at run time so src/ and dist/ (both two levels below the package) report the published version.
function packageVersion(): string {
  try {
    const manifest = createRequire(import.meta.url)('../../package.json') as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
