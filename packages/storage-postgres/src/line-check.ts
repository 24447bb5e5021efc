import type { StuckLine, StuckLineKey } from '@plant-store/core/adapter';
import type { QueryRunner } from './query-runner.js';
import type { Tables } from './tables.js';
import { lineIdle, releaseNextSql } from './delivery-lines.js';

// The operator's check of the delivery lines: statements of their own, apart from the outbox's hot path.

/**
 * Parameter: limit. Pending messages without a due time whose line has nothing due or in flight (a leased message keeps its due
 * time), grouped by line; those of no line (`ordering_key` NULL) group by endpoint, since the equality never holds for them.
 * One statement, so one snapshot: a line caught between two committed states is never reported.
 */
const stuckLinesSql = (t: Tables) => `
  SELECT h.endpoint_id, h.ordering_key, min(h.tenant) AS tenant, count(*) AS waiting, min(h.created_at) AS oldest
  FROM ${t.deliveries} AS h
  WHERE h.status = 'pending' AND h.next_attempt_at IS NULL
    AND ${lineIdle(t, 'h.endpoint_id', 'h.ordering_key')}
  GROUP BY h.endpoint_id, h.ordering_key
  ORDER BY oldest, h.endpoint_id, h.ordering_key
  LIMIT $1`;

/**
 * Parameters: endpoint id, ordering key. Locks every pending message of the line, so that whatever changes the line (an end
 * releasing the next, a write joining it behind its last, a disable) commits before the release reads it or waits for it.
 */
const lockLineSql = (t: Tables) => `
  SELECT id FROM ${t.deliveries}
  WHERE status = 'pending' AND endpoint_id = $1 AND ordering_key = $2
  ORDER BY line_seq, seq
  FOR UPDATE`;

/** The release of a line's end, for one line, answering the message it made due. */
const releaseLineSql = (t: Tables) => `${releaseNextSql(t)} RETURNING d.id`;

/** Parameters: endpoint id, now. Messages of no line wait for nothing: each one without a due time becomes due. */
const releaseUnlinedSql = (t: Tables) => `
  UPDATE ${t.deliveries} SET next_attempt_at = $2, updated_at = $2
  WHERE status = 'pending' AND endpoint_id = $1 AND ordering_key IS NULL AND next_attempt_at IS NULL`;

/** Deadlock and serialization failures: the line's lock met a statement locking the same rows in another order (a disable, say); tried again. */
const RETRIED_CODES = new Set(['40P01', '40001']);
const ATTEMPTS = 5;

interface StuckLineRow {
  readonly endpoint_id: string;
  readonly ordering_key: string | null;
  readonly tenant: string;
  readonly waiting: bigint | string;
  readonly oldest: bigint | string;
}

/** `WebhookOutbox.stuckLines` and `releaseStuckLine` on PostgreSQL, safe while instances claim, write and finish on the same lines. */
export class PostgresLineCheck {
  readonly #runner: QueryRunner;
  readonly #tables: Tables;

  constructor(runner: QueryRunner, tables: Tables) {
    this.#runner = runner;
    this.#tables = tables;
  }

  async stuckLines(limit: number): Promise<StuckLine[]> {
    const rows = await this.#runner.rows<StuckLineRow>('find stuck delivery lines', stuckLinesSql(this.#tables), [Math.max(1, Math.trunc(limit))]);
    return rows.map((row) => ({
      endpointId: row.endpoint_id,
      tenant: row.tenant,
      ...(row.ordering_key !== null && { orderingKey: row.ordering_key }),
      waiting: Number(row.waiting),
      oldestCreatedAt: Number(row.oldest),
    }));
  }

  async releaseStuckLine({ endpointId, orderingKey }: StuckLineKey, now: number): Promise<number> {
    const at = Math.round(now);
    const action = 'release a stuck delivery line';
    if (orderingKey === undefined) return this.#runner.changes(action, releaseUnlinedSql(this.#tables), [endpointId, at]);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#runner.transaction(action, async (rows) => {
          await rows(lockLineSql(this.#tables), [endpointId, orderingKey]);
          // A statement of its own after the lock, so its snapshot sees what the lock waited for.
          return (await rows(releaseLineSql(this.#tables), [[endpointId], [orderingKey], [at]])).length;
        });
      } catch (error) {
        if (attempt >= ATTEMPTS || !RETRIED_CODES.has(codeOf(error))) throw error;
      }
    }
  }
}

/** The SQLSTATE of a wrapped driver error, '' when there is none. */
function codeOf(error: unknown): string {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' ? code : '';
}
