import type { Clock } from '../ports/clock.js';
import type { ClaimedDelivery, WebhookOutbox } from '../ports/webhook-outbox.js';
import type { AttemptSlots } from './attempt-slots.js';
import type { EndpointThrottle } from './endpoint-throttle.js';
import { isTenantEndpointId } from './endpoints/webhook-endpoint.js';

/** Whose share of the slots a delivery takes: its tenant's for a tenant endpoint; an operator subscription is an owner of its own (its endpoint cap bounds it). */
export function slotOwner(delivery: Pick<ClaimedDelivery, 'tenant' | 'endpointId'>): string {
  return isTenantEndpointId(delivery.endpointId) ? `tenant:${delivery.tenant}` : `subscription:${delivery.endpointId}`;
}

export interface DeliveryClaimerOptions {
  readonly outbox: WebhookOutbox;
  readonly clock: Clock;
  readonly owner: string;
  readonly leaseMs: number;
  readonly batchSize: number;
  readonly slots: AttemptSlots;
  /** Endpoints at their rate limit are not claimed for until their window ends. */
  readonly throttle: EndpointThrottle;
  /** Every endpoint id there is, when the set is fixed (see `DeliveryTargets.ids`). */
  readonly knownEndpointIds?: () => readonly string[] | undefined;
}

/** One claiming pass: whether to keep going, and what to do with each delivery. */
export interface ClaimPass {
  /** Still taking work? Checked before each claim and for each delivery claimed. */
  readonly running: () => boolean;
  /** Claim even when every known endpoint is at its cap (a timer or the poll asked: there may be deliveries for unknown endpoints). */
  readonly checkDue: boolean;
  /** Starts the attempt of a claimed delivery (a slot is known to be free). */
  readonly launch: (delivery: ClaimedDelivery) => void;
}

/** What a claiming pass came to. */
export interface ClaimPassResult {
  /** It stopped at the caps, or passed over endpoints at theirs: a finishing attempt will wake the dispatcher. */
  readonly capped: boolean;
  /** The time its last claim looked at, when it made one: whatever was due then and not claimed, it could not take. */
  readonly lookedAt?: number | undefined;
}

/** Claims due deliveries as leases while there are free slots and work; what does not fit (or arrives after a stop) is released at once. */
export class DeliveryClaimer {
  readonly #options: DeliveryClaimerOptions;

  constructor(options: DeliveryClaimerOptions) {
    this.#options = options;
  }

  /** Claims until the caps are reached or nothing more is due. Rejects when storage fails. */
  async claim(pass: ClaimPass): Promise<ClaimPassResult> {
    let capped = false;
    let lookedAt: number | undefined;
    // Endpoints found without room in this pass (an owner at its cap, say): the next round passes over them.
    const noRoom = new Set<string>();
    while (pass.running()) {
      const limit = this.#limit(pass.checkDue);
      if (limit === 0) return { capped: true, lookedAt };
      const { claimed, skipped, now } = await this.#claimOnce(limit, pass, noRoom);
      capped ||= skipped;
      lookedAt = now;
      if (claimed < limit) return { capped, lookedAt };
    }
    return { capped, lookedAt };
  }

  /** How many to claim now; 0 when the caps leave no room worth a storage round trip. */
  #limit(checkDue: boolean): number {
    const { slots, batchSize } = this.#options;
    const knownEndpointIds = this.#options.knownEndpointIds?.();
    const free = slots.free;
    if (free <= 0) return 0;
    const knownRoom = knownEndpointIds ? slots.roomFor(knownEndpointIds) : Infinity;
    // Every known endpoint at its cap: a claim on each wake would be a round trip for nothing; the poll and due timer claim a few for unknown ones.
    if (knownRoom === 0) return checkDue ? Math.min(free, batchSize, slots.perEndpoint) : 0;
    // No more than the endpoints can take: leasing rows only to release them costs two writes per delivery.
    return Math.min(free, batchSize, knownRoom);
  }

  async #claimOnce(limit: number, pass: ClaimPass, noRoom: Set<string>): Promise<{ claimed: number; skipped: boolean; now: number }> {
    const { outbox, clock, owner, leaseMs, slots, throttle } = this.#options;
    const now = clock.now();
    const skipEndpoints = [...new Set([...slots.fullEndpoints(), ...throttle.blocked(now), ...noRoom])];
    const claimed = await outbox.claimDue({ owner, now, leaseMs, limit, skipEndpoints });
    const surplus: string[] = [];
    for (const delivery of claimed) {
      const deliveryOwner = slotOwner(delivery);
      if (pass.running() && slots.hasRoomFor(delivery.endpointId, deliveryOwner)) {
        pass.launch(delivery);
        continue;
      }
      surplus.push(delivery.id);
      noRoom.add(delivery.endpointId);
      slots.noteOwner(delivery.endpointId, deliveryOwner);
    }
    if (surplus.length > 0) await outbox.release(surplus, owner);
    return { claimed: claimed.length, skipped: skipEndpoints.length > 0 || surplus.length > 0, now };
  }
}
