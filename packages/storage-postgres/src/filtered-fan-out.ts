import { filterEvent, matchesFilter, type EndpointEvent } from '@plant-store/core/adapter';
import type { Tables } from './tables.js';

/*
 * The fan-out to endpoints with a filter. SQL cannot run their query language, so the write matches the event in
 * JavaScript against the tenant's filters as this process last read them, and its statement passes, for each filter it
 * evaluated, the endpoint id, the filter's text and whether it matched. The statement queues (or parks, to a disabled endpoint)
 * to the matched ones whose filter is still that text, and writes nothing at all (answering `stale`) when a subscribed endpoint,
 * enabled or disabled, has a filter it did not evaluate: the writer then reads the tenant's filters again and retries. A write
 * stays one statement.
 */

/**
 * No endpoint of tenant $1 subscribed to the event (type $ev, NULL: none) has a filter other than the ones the writer evaluated
 * (parameters $k ids, $k+1 filter texts).
 */
export const filtersCurrent = (t: Tables, ev: number, k: number) => `NOT EXISTS (
    SELECT FROM ${t.endpoints} AS f
    WHERE $${ev}::text IS NOT NULL AND f.tenant = $1 AND f.filter IS NOT NULL AND $${ev}::text = ANY (f.event_types)
      AND NOT EXISTS (SELECT FROM unnest($${k}::text[], $${k + 1}::text[]) AS k (id, filter) WHERE k.id = f.id AND k.filter = f.filter))`;

/** Endpoint `e` has no filter, or one the event matched (parameters $k ids, $k+1 filter texts, $k+2 whether each matched). */
export const unfilteredOrMatched = (e: string, k: number) => `(${e}.filter IS NULL OR EXISTS (
      SELECT FROM unnest($${k}::text[], $${k + 1}::text[], $${k + 2}::boolean[]) AS k (id, filter, matched)
      WHERE k.matched AND k.id = ${e}.id AND k.filter = ${e}.filter))`;

/** Parameters: tenant. The tenant's endpoints with a filter, whatever their status. */
export const tenantFiltersSql = (t: Tables) => `SELECT id, filter FROM ${t.endpoints} WHERE tenant = $1 AND filter IS NOT NULL`;

/** Most tenants whose filters are kept; past it the least recently read tenant's are dropped (and read again when next needed). */
const MAX_TENANTS = 10_000;

/** Each tenant's endpoint filters as this process last read them (`[id, filter text]`); a tenant never read has none. */
export class FilterCache {
  readonly #filters = new Map<string, readonly (readonly [id: string, filter: string])[]>();

  /** The three parameters of a write's statement: the ids and filter texts evaluated, and whether the event matched each. */
  parameters(tenant: string, event: EndpointEvent | undefined): [string[], string[], boolean[]] {
    const filters = (event && this.#filters.get(tenant)) || [];
    if (!event || filters.length === 0) return [[], [], []];
    const seen = filterEvent(event.eventType, tenant, event.payload);
    return [filters.map(([id]) => id), filters.map(([, filter]) => filter), filters.map(([, filter]) => matchesFilter(filter, seen))];
  }

  /** Replaces the tenant's filters with those just read. */
  set(tenant: string, rows: readonly { id: string; filter: string }[]): void {
    this.#filters.delete(tenant);
    if (this.#filters.size >= MAX_TENANTS) this.#filters.delete(this.#filters.keys().next().value!);
    this.#filters.set(
      tenant,
      rows.map(({ id, filter }) => [id, filter] as const),
    );
  }
}
