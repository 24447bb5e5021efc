import { authenticateRequest } from '../http/authenticate-request.js';
import { sendJson } from '../http/send-json.js';
import { jsonArray } from '../http/webhook-json.js';
import { webhookEventSchemas } from '../openapi/webhook-event-schemas.js';
import type { Exchange, RouteContext } from './route-context.js';

type Catalogue = readonly { type: string; description: string; example: string }[];

// The core hands out one catalogue for every request and listener: its JSON is built once per process.
let cached: { readonly entries: Catalogue; readonly json: string } | undefined;

/** The catalogue as JSON: `example` is embedded as its exact text (int64 ids stay exact). */
function catalogueJson(entries: Catalogue): string {
  if (cached?.entries !== entries) {
    const schemas = webhookEventSchemas() as Record<string, unknown>;
    const items = entries.map(({ type, description, example }) => {
      const head = JSON.stringify({ type, description, schema: schemas[type] });
      return `${head.slice(0, -1)},"example":${example}}`;
    });
    cached = { entries, json: jsonArray(items) };
  }
  return cached.json;
}

export async function listEventTypes(context: RouteContext, exchange: Exchange): Promise<void> {
  const principal = await authenticateRequest(context.store, exchange);
  const entries = context.store.webhooks.endpoints.eventTypes(principal);
  sendJson(exchange.res, exchange.requestId, 200, catalogueJson(entries));
}
