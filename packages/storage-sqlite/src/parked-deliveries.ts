import { BOUND_LIMIT } from './bound-limit.js';
import { endedAttempts, endedDeliveries, requeuedToBackOfLine } from './delivery-lines.js';

// SQL of parked deliveries: kept for a disabled endpoint (never due, in no line, their ordering key kept), replayed or
// discarded when it is enabled again. Their index (webhook_deliveries_parked) holds them per endpoint in creation order,
// the rowid breaking ties; the statements name it, so an operator's ANALYZE never turns them to the history's indexes.

/**
 * Parameters: endpoint, limit. The bound: deletes (their attempts with them) the endpoint's parked messages past the newest
 * `limit`; its changes are how many the bound dropped. Reads the index from the newest end, `limit` entries at most.
 */
export const DROP_PARKED_BEYOND_LIMIT = `
  DELETE FROM webhook_deliveries WHERE rowid IN (
    SELECT rowid FROM webhook_deliveries INDEXED BY webhook_deliveries_parked
    WHERE status = 'parked' AND endpoint_id = ?
    ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ${BOUND_LIMIT})`;

/** Parameters: how many the bound dropped, endpoint. */
export const COUNT_PARKED_DROPPED = 'UPDATE webhook_endpoints SET parked_dropped = parked_dropped + ? WHERE id = ?';

/** Parameters: endpoint. A new time off counts its drops afresh. */
export const RESET_PARKED_DROPPED = 'UPDATE webhook_endpoints SET parked_dropped = 0 WHERE id = ?';

/** The endpoint's parked messages created before @before. */
const PARKED_BEFORE = `status = 'parked' AND endpoint_id = @endpoint AND created_at < @before`;

/** Parameters: at, error, endpoint, before. Run before {@link END_PARKED}, while they are still parked. */
export const END_PARKED_ATTEMPTS = endedAttempts(PARKED_BEFORE);

/** Parameters: at, endpoint, before. The parked messages created before @before end failed (a discard, or the endpoint's delete). */
export const END_PARKED = endedDeliveries(PARKED_BEFORE);

/** Parameters: endpoint. Its parked messages in creation order: a replay requeues each on its own, so a line's are queued in that order. */
export const PARKED_OF = `
  SELECT id FROM webhook_deliveries INDEXED BY webhook_deliveries_parked
  WHERE status = 'parked' AND endpoint_id = ? ORDER BY created_at, rowid`;

/** Parameters: id, now. A parked message back to pending, due at @now, at the back of its line as a recovery's requeue puts it. */
export const REPLAY_PARKED = requeuedToBackOfLine(`status = 'parked'`);

/** Runs a statement with positional parameters and answers its changes. */
export type Changes = (statement: string, parameters: readonly unknown[]) => number;

type Step = [statement: string, parameters: readonly unknown[]];

/**
 * The bound's statements on each endpoint in turn (see DROP_PARKED_BEYOND_LIMIT), counting the dropped on it: each step is given
 * the changes of the one before; returns how many it dropped in all. Written once for a connection that answers at once and one
 * that answers promises.
 */
function* boundSteps(endpointIds: readonly string[], limit: number): Generator<Step, number, number> {
  let dropped = 0;
  for (const endpointId of endpointIds) {
    const count = yield [DROP_PARKED_BEYOND_LIMIT, [endpointId, limit]];
    if (count > 0) yield [COUNT_PARKED_DROPPED, [count, endpointId]];
    dropped += count;
  }
  return dropped;
}

/** The bound on each endpoint (see boundSteps); how many it dropped in all. Inside the caller's transaction. */
export function boundParked(changes: Changes, endpointIds: readonly string[], limit: number): number {
  const steps = boundSteps(endpointIds, limit);
  let step = steps.next();
  while (!step.done) step = steps.next(changes(...step.value));
  return step.value;
}

/** {@link boundParked} on a connection whose statements answer promises (a host's kysely transaction). */
export async function boundParkedAsync(
  changes: (statement: string, parameters: readonly unknown[]) => Promise<number>,
  endpointIds: readonly string[],
  limit: number,
): Promise<number> {
  const steps = boundSteps(endpointIds, limit);
  let step = steps.next();
  while (!step.done) step = steps.next(await changes(...step.value));
  return step.value;
}
