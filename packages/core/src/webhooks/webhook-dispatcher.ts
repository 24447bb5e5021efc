import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { WebhookAttemptOutcome } from '../events/plant-events.js';
import type { AttemptOutcome, ClaimedDelivery } from '../ports/webhook-outbox.js';
import { outsideAnyTrace } from '../tracing/tracer.js';
import { AttemptRecorder } from './attempt-recorder.js';
import { AttemptSlots } from './attempt-slots.js';
import { attemptDelivery, describeFailure, THROTTLED, type AttemptContext, type AttemptResult } from './delivery-attempt.js';
import { DeliveryClaimer, slotOwner, type ClaimPassResult } from './delivery-claimer.js';
import { DispatchTimer } from './dispatch-timer.js';
import type { WebhookDispatcherOptions, WebhookDispatchSettings } from './dispatcher-options.js';
import { EndpointHealth } from './endpoint-health.js';
import { EndpointThrottle } from './endpoint-throttle.js';
import type { OperationalEvents } from './operational-events.js';
import { RetryPolicy } from './retry-policy.js';
import { StorageOutage } from './storage-outage.js';
import { DEFAULT_ATTEMPT_TIMEOUT_MS, DEFAULT_DISABLE_AFTER_MS, DEFAULT_USER_AGENT } from './webhook-defaults.js';

/**
 * Sends queued deliveries: woken after a commit (or by `DispatchTimer`), it claims due ones as leases, runs each in a slot under caps
 * that keep slow endpoints and busy tenants from taking every slot, and records the outcome. Only a lease holder attempts, so dispatchers
 * may share an outbox. Storage failures are retried, never thrown, and logged once per outage.
 */
export class WebhookDispatcher {
  readonly #options: WebhookDispatcherOptions;
  readonly #pollIntervalMs: number;
  readonly owner: string;
  readonly #slots: AttemptSlots;
  readonly #claimer: DeliveryClaimer;
  readonly #recorder: AttemptRecorder;
  readonly #context: AttemptContext;
  readonly #timer: DispatchTimer;
  readonly #throttle: EndpointThrottle;
  readonly #health: EndpointHealth | undefined;
  /** Whether any tenant endpoint existed at the last look (refreshed with each timer or poll pass); until then, assume so. */
  #tenantEndpoints = true;
  readonly #outage: StorageOutage;

  #state: 'idle' | 'running' | 'stopped' = 'idle';
  #pumpScheduled = false;
  #pumping: Promise<void> | undefined;
  #pumpAgain = false;
  /** Ask storage for its next due time after the next claim pass (start, poll, timer, errors). */
  #checkDue = true;
  #stopping: Promise<void> | undefined;

  constructor(options: WebhookDispatcherOptions) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
    const concurrency = Math.max(1, options.concurrency ?? 256);
    this.#options = options;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
    this.#slots = attemptSlots(options, concurrency, timeoutMs);
    // Rate limits hold across every process on the storage when it keeps a shared budget.
    this.#throttle = new EndpointThrottle(options.outbox.takeRateBudget?.bind(options.outbox));
    this.#claimer = new DeliveryClaimer({
      outbox: options.outbox,
      clock: options.clock,
      owner: this.owner,
      leaseMs: options.leaseMs ?? timeoutMs + 10_000,
      batchSize: Math.max(1, options.batchSize ?? Math.min(64, concurrency)),
      slots: this.#slots,
      throttle: this.#throttle,
      // Fixed only while no tenant has an endpoint: theirs come and go (looked at in #pumpLoop).
      knownEndpointIds: () => (this.#tenantEndpoints ? undefined : options.targets.ids),
    });
    this.#recorder = new AttemptRecorder({ outbox: options.outbox, owner: this.owner, policy: new RetryPolicy(options), logger: options.logger });
    const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#context = { transport: options.transport, targets: options.targets, throttle: this.#throttle, clock: options.clock, timeoutMs, userAgent };
    const disableAfterMs = options.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS;
    const onDisabled = (...args: Parameters<OperationalEvents['endpointDisabled']>) => this.#queued(this.#options.operationalEvents?.endpointDisabled(...args));
    this.#health =
      options.endpoints && new EndpointHealth({ endpoints: options.endpoints, disableAfterMs, clock: options.clock, logger: options.logger, onDisabled });
    this.#timer = new DispatchTimer(options.clock, () => {
      this.#checkDue = true;
      this.wake();
    });
    this.#outage = new StorageOutage(options.logger, options.clock);
  }

  /** Starts taking work, including what is already due (idempotent; no effect after `stop()`). */
  start(): void {
    if (this.#state !== 'idle') return;
    this.#state = 'running';
    this.#timer.startPolling(this.#pollIntervalMs);
    this.wake();
  }

  /** Looks for due work now (called after a commit that queued deliveries). Cheap: wakes in the same turn coalesce. */
  wake(): void {
    if (this.#state !== 'running' || this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    // Outside the waker's trace: a request that queued work must not become the parent of the dispatcher's storage calls.
    outsideAnyTrace(() =>
      setImmediate(() => {
        this.#pumpScheduled = false;
        this.#pump();
      }),
    );
  }

  /** Stops taking work, lets attempts in flight run for up to `stopTimeoutMs`, then aborts the rest (recorded as interrupted, due again at once). Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#state = 'stopped';
    this.#timer.stop();
    await this.#pumping; // a claim in progress releases what it got (the state is no longer running)
    const stopTimeoutMs = this.#options.stopTimeoutMs ?? 2_000;
    if (await this.#slots.settled(stopTimeoutMs)) return;
    this.#options.logger.info('webhook dispatcher: interrupting attempts still running', { inFlight: this.#slots.size });
    this.#slots.abortAll();
    if (await this.#slots.settled(stopTimeoutMs)) return;
    // Their transport ignored the abort: free the deliveries for the next dispatcher all the same.
    const stuck = this.#slots.deliveryIds();
    this.#options.logger.warn('webhook dispatcher stopped with attempts that ignored the abort; their leases are released', { inFlight: stuck.length });
    await this.#options.outbox.release(stuck, this.owner).catch((error: unknown) => {
      this.#options.logger.error('webhook dispatcher: could not release leases; they are retried when the lease ends', { error: describeFailure(error) });
    });
  }

  /** Runs claim passes until no wake is pending; only one runs at a time. */
  #pump(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = this.#pumpLoop().finally(() => {
      this.#pumping = undefined;
    });
  }

  async #pumpLoop(): Promise<void> {
    try {
      do {
        this.#pumpAgain = false;
        // Whether any tenant endpoint exists (one row at most), so the claimer knows whether the endpoint set is fixed.
        if (this.#checkDue && this.#state === 'running') this.#tenantEndpoints = ((await this.#options.endpoints?.listAll({ limit: 1 }))?.length ?? 0) > 0;
        const claimed = await this.#claimer.claim({
          running: () => this.#state === 'running',
          checkDue: this.#checkDue,
          launch: (delivery) =>
            this.#slots.run(
              delivery.id,
              delivery.endpointId,
              slotOwner(delivery),
              (signal, answered) => this.#attempt(delivery, signal, answered),
              () => this.wake(),
            ),
        });
        // Deliveries held back by a rate limit are due again when its window ends; no attempt finishing need wake us.
        const opening = this.#throttle.nextOpening();
        if (opening !== undefined) this.#timer.scheduleAt(opening);
        if (this.#checkDue && this.#state === 'running') {
          this.#checkDue = false;
          await this.#armForNextDue(claimed);
        }
      } while (this.#pumpAgain && this.#state === 'running');
      this.#outage.succeeded();
    } catch (error) {
      this.#outage.failed(describeFailure(error));
      this.#checkDue = true;
      this.#timer.scheduleAt(this.#options.clock.now() + Math.min(this.#pollIntervalMs, 1_000));
    }
  }

  /** Endpoints whose latest attempt ran long or timed out (they get fewer attempt slots until one answers promptly). */
  slowEndpoints(): string[] {
    return this.#slots.slowEndpoints();
  }

  /** A tenant endpoint was created in this process: its deliveries must be claimed on the next wake. */
  noteEndpointCreated(): void {
    this.#tenantEndpoints = true;
  }

  /** Arms the timer for the earliest due time storage knows (retries, expired leases, work from elsewhere). */
  async #armForNextDue({ capped, lookedAt }: ClaimPassResult): Promise<void> {
    const next = await this.#options.outbox.nextDueAt();
    if (next === undefined || this.#state !== 'running') return;
    const now = this.#options.clock.now();
    if (next > now) this.#timer.scheduleAt(next);
    // Due but not claimed: waiting for a slot, and the completion that frees it wakes us.
    else if (capped) return;
    // Due only since the claim looked: claim it now. Due when it looked and not claimed: another transaction holds it (a claim
    // that leases it, a write whose commit wakes us); the poll looks again, rather than a claim every few ms until it lets go.
    else if (lookedAt === undefined || next > lookedAt) this.#timer.scheduleAt(now + 5);
  }

  /** One attempt, recorded (or, over the endpoint's rate limit, released for later); never rejects. */
  async #attempt(delivery: ClaimedDelivery, signal: AbortSignal, answered: () => void): Promise<void> {
    try {
      const result = await attemptDelivery(delivery, this.#context, signal);
      if (result === THROTTLED) {
        // Given back, due as before; looked at again when the endpoint's rate window ends.
        await this.#options.outbox.release([delivery.id], this.owner);
        return this.#timer.scheduleAt(this.#throttle.windowEnd(delivery.endpointId) ?? this.#options.clock.now());
      }
      if (!result.interrupted && !result.parked) this.#slots.observe(delivery.endpointId, result.finishedAt - result.startedAt);
      // The endpoint is done with this one: the next may go to it while this outcome is recorded.
      answered();
      const outcome = await this.#recorder.record(delivery, result);
      const metric = outcome && attemptOutcome(outcome, result);
      if (metric) this.#options.events?.emit('webhook.attempted', { outcome: metric, durationMs: Math.max(0, result.finishedAt - result.startedAt) });
      if (outcome?.status === 'pending') this.#timer.scheduleAt(outcome.nextAttemptAt);
      if (outcome?.status === 'failed') await this.#queued(this.#options.operationalEvents?.deliveryFailed(delivery, result.outcome, result.finishedAt));
      // A failure in the operator's egress (its proxy) says nothing about the receiver: not counted toward disabling it.
      if (outcome && !result.outcome.egressFailed) await this.#health?.observe(delivery, outcome, result.startedAt);
    } catch (error) {
      // The lease runs out and the delivery is tried again: at-least-once.
      this.#options.logger.error('webhook dispatcher: could not record an attempt, will retry', { deliveryId: delivery.id, error: describeFailure(error) });
    }
  }

  /** Waits for operational events to be queued and sends them; a storage failure loses them (logged), never the attempt's record. */
  async #queued(queuing: Promise<number> | undefined): Promise<void> {
    try {
      if (((await queuing) ?? 0) > 0) this.wake();
    } catch (error) {
      this.#options.logger.error('webhook dispatcher: could not queue an operational event', { error: describeFailure(error) });
    }
  }
}

function attemptSlots(options: WebhookDispatchSettings, concurrency: number, timeoutMs: number): AttemptSlots {
  const perEndpoint = Math.max(1, options.perEndpointConcurrency ?? 16);
  return new AttemptSlots({
    concurrency,
    perEndpoint,
    perOwner: options.perTenantConcurrency ?? Math.max(perEndpoint, Math.ceil(concurrency / 4)),
    slowAfterMs: options.slowAttemptMs ?? Math.min(5_000, timeoutMs),
  });
}

/** The outcome as metrics name it (a 410 told apart from retries running out); none for an interrupted attempt or a parked message (nothing was sent). */
function attemptOutcome(outcome: AttemptOutcome, result: AttemptResult): WebhookAttemptOutcome | undefined {
  if (outcome.status === 'interrupted' || outcome.status === 'parked') return undefined;
  if (outcome.status === 'pending') return 'retry';
  if (outcome.status === 'failed' && result.outcome.kind === 'gone') return 'gone';
  return outcome.status;
}
