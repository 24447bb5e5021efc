import { authenticateRequest } from '../http/authenticate-request.js';
import { sendJson } from '../http/send-json.js';
import { webhookEventSchemas } from '../openapi/webhook-event-schemas.js';
import type { Exchange, RouteContext } from './route-context.js';

// The same for every request and listener: built once per process.
let catalogueJson: string | undefined;

/** The catalogue as JSON, built on first use: `example` is embedded as its exact text (int64 ids stay exact). */
function catalogue(entries: readonly { type: string; description: string; example: string }[]): string {
  if (catalogueJson === undefined) {
    const schemas = webhookEventSchemas() as Record<string, unknown>;
    const items = entries.map(({ type, description, example }) => {
      const head = JSON.stringify({ type, description, schema: schemas[type] });
      return `${head.slice(0, -1)},"example":${example}}`;
    });
    catalogueJson = `[${items.join(',')}]`;
  }
  return catalogueJson;
}

/** `GET /webhooks/event-types`: every event type with its description, JSON Schema and an example body. */
export async function listEventTypes(context: RouteContext, exchange: Exchange): Promise<void> {
  const principal = await authenticateRequest(context.store, exchange.req);
  const entries = context.store.webhooks.endpoints.eventTypes(principal);
  sendJson(exchange.res, exchange.requestId, 200, catalogue(entries));
}
