import type { NewDelivery, StuckLine, StuckLineKey } from '@plant-store/core/adapter';

/** The part of a pending delivery's state the line check reads and writes. */
export interface LineMember {
  readonly message: NewDelivery;
  nextAttemptAt: number | undefined;
}

const keyOf = ({ endpointId, orderingKey }: StuckLineKey) => JSON.stringify([endpointId, orderingKey ?? null]);

/** Up to `limit` stuck lines among the pending deliveries, oldest waiting message first (see `WebhookOutbox.stuckLines`). */
export function stuckLinesIn(pending: Iterable<LineMember>, limit: number): StuckLine[] {
  const busy = new Set<string>();
  const waiting = new Map<string, { line: StuckLine; oldest: number }>();
  for (const { message, nextAttemptAt } of pending) {
    if (nextAttemptAt !== undefined) {
      if (message.orderingKey !== undefined) busy.add(keyOf(message));
      continue;
    }
    const key = keyOf(message);
    const found = waiting.get(key);
    const oldest = Math.min(found?.oldest ?? Infinity, message.createdAt);
    const { endpointId, tenant, orderingKey } = message;
    const line = { endpointId, tenant, ...(orderingKey !== undefined && { orderingKey }), waiting: (found?.line.waiting ?? 0) + 1, oldestCreatedAt: oldest };
    waiting.set(key, { line, oldest });
  }
  return [...waiting]
    .filter(([key]) => !busy.has(key))
    .map(([, { line }]) => line)
    .sort((a, b) => a.oldestCreatedAt - b.oldestCreatedAt || keyOf(a).localeCompare(keyOf(b)))
    .slice(0, Math.max(1, limit));
}

/**
 * Makes the line's first waiting delivery due at `now` while nothing of it is due (see `WebhookOutbox.releaseStuckLine`);
 * how many became due. `members` holds the line's pending deliveries in queue order (any pending ones for an unkeyed line).
 */
export function releaseStuckLineIn(members: Iterable<LineMember>, line: StuckLineKey, now: number): number {
  const key = keyOf(line);
  const mine = [...members].filter(({ message }) => keyOf(message) === key);
  const held = mine.filter((member) => member.nextAttemptAt === undefined);
  if (line.orderingKey === undefined) {
    for (const member of held) member.nextAttemptAt = now;
    return held.length;
  }
  if (held.length === mine.length && held[0] !== undefined) {
    held[0].nextAttemptAt = now;
    return 1;
  }
  return 0;
}
