import { filterEvent, matchesFilter, type EndpointEvent } from '@plant-store/core/adapter';
import { fanOutSql, type FanOutParameters } from './plant-queries.js';

/*
 * The fan-out to endpoints with a filter: the write's transaction reads their filters, matches the event in JavaScript
 * (a query language SQL cannot run) and queues to the matching ones only. Endpoints without a filter take FAN_OUT.
 */

/** Parameters: tenant, event type. One row: the subscribed endpoints with a filter (disabled ones too: they get a parked delivery), as a JSON array of `[id, filter]`. */
export const FILTERED_TARGETS = `
  SELECT json_group_array(json_array(id, filter)) AS targets FROM webhook_endpoints
  WHERE tenant = ? AND filter IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(event_types) WHERE value = ?)`;

/** FAN_OUT to the filtered endpoints of a JSON array of ids; parameters: see {@link matchedFanOutParameters}. */
export const FAN_OUT_MATCHED = fanOutSql('filter IS NOT NULL AND id IN (SELECT value FROM json_each(?))');

/** The ids (a JSON array) of the filtered endpoints (FILTERED_TARGETS' row) whose filter the event matches; undefined when none does. */
export function matchedEndpoints(targets: string, tenant: string, event: EndpointEvent): string | undefined {
  const rows = JSON.parse(targets) as [id: string, filter: string][];
  if (rows.length === 0) return undefined;
  const seen = filterEvent(event.eventType, tenant, event.payload);
  const matched = rows.filter(([, filter]) => matchesFilter(filter, seen)).map(([id]) => id);
  return matched.length === 0 ? undefined : JSON.stringify(matched);
}

/** The parameters of FAN_OUT_MATCHED: those of FAN_OUT with the matched ids after the endpoints' event type. */
export function matchedFanOutParameters(parameters: FanOutParameters, matched: string): unknown[] {
  return [...parameters.slice(0, 3), matched, ...parameters.slice(3)];
}
