import { filterEvent, matchesFilter, type EndpointEvent } from '@plant-store/core/adapter';
import { fanOutSql, type FanOutParameters } from './plant-queries.js';

/*
 * The fan-out to endpoints with a filter: the write's transaction reads their filters, matches the event in JavaScript
 * (a query language SQL cannot run) and queues to the matching ones only. Endpoints without a filter take FAN_OUT.
 */

/**
 * Parameters: tenant, event type. One row of two JSON arrays: `filtered`, the subscribed endpoints with a filter as `[id, filter, enabled]`
 * (disabled ones too: they get a parked delivery when the event matches), and `parking`, the ids of the subscribed disabled ones without
 * a filter (FAN_OUT parks a delivery for each). The write learns from it which endpoints it parks for, so that the bound runs only then,
 * and FAN_OUT needs no RETURNING (whose ephemeral table every write would pay for). Reads only filtered or disabled endpoints' event types.
 */
export const FAN_OUT_TARGETS = `
  SELECT json_group_array(json_array(id, filter, status = 'enabled')) FILTER (WHERE filter IS NOT NULL) AS filtered,
    json_group_array(id) FILTER (WHERE filter IS NULL) AS parking
  FROM webhook_endpoints
  WHERE tenant = ? AND (filter IS NOT NULL OR status <> 'enabled') AND EXISTS (SELECT 1 FROM json_each(event_types) WHERE value = ?)`;

/** What a write's fan-out does beyond FAN_OUT: the filtered endpoints the event matched, and the endpoints it parks a delivery for. */
export interface FanOutPlan {
  /** The ids (a JSON array) of the filtered endpoints whose filter the event matches (FAN_OUT_MATCHED's parameter); absent when none does. */
  readonly matched?: string;
  /** The disabled endpoints it parks for (the bound runs on them after the fan-out); empty for nearly every write. */
  readonly parking: readonly string[];
}

/** FAN_OUT to the filtered endpoints of a JSON array of ids; parameters: see {@link matchedFanOutParameters}. */
export const FAN_OUT_MATCHED = fanOutSql('filter IS NOT NULL AND id IN (SELECT value FROM json_each(?))');

const NONE = '[]';

/** The plan of a write's fan-out from FAN_OUT_TARGETS' two columns: filters matched in JavaScript, the disabled endpoints collected. */
export function fanOutPlan(filtered: string, parking: string, tenant: string, event: EndpointEvent): FanOutPlan {
  const parks: string[] = parking === NONE ? [] : (JSON.parse(parking) as string[]);
  if (filtered === NONE) return { parking: parks };
  const seen = filterEvent(event.eventType, tenant, event.payload);
  const rows = JSON.parse(filtered) as [id: string, filter: string, enabled: 0 | 1][];
  const matched = rows.filter(([, filter]) => matchesFilter(filter, seen));
  for (const [id, , enabled] of matched) if (!enabled) parks.push(id);
  return { ...(matched.length > 0 && { matched: JSON.stringify(matched.map(([id]) => id)) }), parking: parks };
}

/** The parameters of FAN_OUT_MATCHED: those of FAN_OUT with the matched ids after the endpoints' event type. */
export function matchedFanOutParameters(parameters: FanOutParameters, matched: string): unknown[] {
  return [...parameters.slice(0, 3), matched, ...parameters.slice(3)];
}
