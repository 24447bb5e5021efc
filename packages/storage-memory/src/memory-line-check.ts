import type { NewDelivery, StuckLine, StuckLineKey } from '@plant-store/core/adapter';

/** The part of a pending delivery's state the line check reads and writes. */
export interface LineMember {
  readonly message: NewDelivery;
  nextAttemptAt: number | undefined;
}

const keyOf = ({ endpointId, orderingKey }: StuckLineKey) => JSON.stringify([endpointId, orderingKey ?? null]);

const held = (member: LineMember) => member.nextAttemptAt === undefined;

/**
 * Up to `limit` stuck lines, oldest waiting message first (see `WebhookOutbox.stuckLines`): those of `lines` (each line's
 * pending deliveries) with nothing due or in flight, and per endpoint the held deliveries of `unlined` (those of no line).
 */
export function stuckLinesIn(lines: Iterable<readonly LineMember[]>, unlined: Iterable<LineMember>, limit: number): StuckLine[] {
  const stuck = [...lines].filter((line) => line.every(held));
  const waitingOf = new Map<string, LineMember[]>();
  for (const member of unlined) {
    if (!held(member)) continue;
    const members = waitingOf.get(member.message.endpointId);
    if (members) members.push(member);
    else waitingOf.set(member.message.endpointId, [member]);
  }
  return [...stuck, ...waitingOf.values()]
    .map((members): StuckLine => {
      const { endpointId, tenant, orderingKey } = members[0]!.message;
      const oldestCreatedAt = Math.min(...members.map(({ message }) => message.createdAt));
      return { endpointId, tenant, ...(orderingKey !== undefined && { orderingKey }), waiting: members.length, oldestCreatedAt };
    })
    .sort((a, b) => a.oldestCreatedAt - b.oldestCreatedAt || keyOf(a).localeCompare(keyOf(b)))
    .slice(0, Math.max(1, limit));
}

/** Makes the line's first delivery due at `at` unless one of it is due or in flight already; whether it did. `line` is in queue order. */
export function releaseFirstIn(line: readonly LineMember[], at: number): boolean {
  if (line.length === 0 || !line.every(held)) return false;
  line[0]!.nextAttemptAt = at;
  return true;
}
