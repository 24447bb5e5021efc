import type { StuckLine, StuckLineKey } from '@plant-store/core/adapter';
import { BOUND_LIMIT } from './bound-limit.js';
import { lineIdle, RELEASE_NEXT_IN_LINE } from './delivery-lines.js';
import type { PreparedStatements } from './prepared-statements.js';
import { withSqliteErrors, withSqliteWrite, type GuardedWrites } from './sqlite-error.js';

// The operator's check of the delivery lines: statements of their own, apart from the outbox's hot path.

/**
 * Pending messages without a due time whose line has nothing due or in flight (a leased message keeps its due time), grouped
 * by line; those of no line (`ordering_key` NULL) group by endpoint, since the equality never holds for them.
 */
const STUCK_LINES = `
  SELECT h.endpoint_id, h.ordering_key, min(h.tenant) AS tenant, count(*) AS waiting, min(h.created_at) AS oldest
  FROM webhook_deliveries AS h
  WHERE h.status = 'pending' AND h.next_attempt_at IS NULL
    AND ${lineIdle('h.endpoint_id', 'h.ordering_key')}
  GROUP BY h.endpoint_id, h.ordering_key
  ORDER BY oldest, h.endpoint_id, h.ordering_key
  LIMIT ${BOUND_LIMIT}`;

/** Messages of no line wait for nothing: each one without a due time becomes due. */
const RELEASE_UNLINED = `
  UPDATE webhook_deliveries SET next_attempt_at = @now, updated_at = @now
  WHERE status = 'pending' AND endpoint_id = @endpoint AND ordering_key IS NULL AND next_attempt_at IS NULL`;

interface StuckLineRow {
  endpoint_id: string;
  ordering_key: string | null;
  tenant: string;
  waiting: number;
  oldest: number;
}

/** `WebhookOutbox.stuckLines` and `releaseStuckLine` on SQLite; the release is one IMMEDIATE transaction, so no other write interleaves. */
export class SqliteLineCheck {
  readonly #prepared: PreparedStatements;
  readonly #file: GuardedWrites;

  constructor(prepared: PreparedStatements, file: GuardedWrites) {
    this.#prepared = prepared;
    this.#file = file;
  }

  stuckLines(limit: number): StuckLine[] {
    return withSqliteErrors('find stuck delivery lines', () =>
      this.#prepared<StuckLineRow>(STUCK_LINES)
        .all(Math.max(1, Math.trunc(limit)))
        .map((row) => ({
          endpointId: row.endpoint_id,
          tenant: row.tenant,
          ...(row.ordering_key !== null && { orderingKey: row.ordering_key }),
          waiting: Number(row.waiting),
          oldestCreatedAt: Number(row.oldest),
        })),
    );
  }

  releaseStuckLine({ endpointId, orderingKey }: StuckLineKey, now: number): number {
    return withSqliteWrite(this.#file, 'release a stuck delivery line', () => {
      const at = Math.round(now);
      if (orderingKey === undefined) return this.#prepared(RELEASE_UNLINED).run({ now: at, endpoint: endpointId }).changes;
      return this.#prepared(RELEASE_NEXT_IN_LINE).run({ at, endpoint: endpointId, key: orderingKey }).changes;
    });
  }
}
