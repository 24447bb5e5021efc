import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@plant-store/core';
import { components } from './components.js';
import { webhookEvents } from './webhook-events.js';

// Taken from the document's `webhooks` section, so the rule is written once; inlined, so a receiver gets one
// self-contained JSON Schema (2020-12, the dialect of OpenAPI 3.1) per type.

type Json = Record<string, unknown>;
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const COMPONENT = '#/components/schemas/';

export function webhookEventSchemas(): Record<WebhookEventType, Json> {
  const schemas = components().schemas as Record<string, Json>;
  const byType = new Map<string, Json>();
  for (const item of Object.values(webhookEvents())) {
    const operation = item.post as { parameters: Json[]; requestBody: { content: Record<string, { schema: Json }> } };
    const eventHeader = operation.parameters.find((parameter) => parameter.name === 'plant-store-event');
    const type = (eventHeader?.schema as Json | undefined)?.const as string;
    byType.set(type, { $schema: DIALECT, ...(inline(operation.requestBody.content['application/json']!.schema, schemas) as Json) });
  }
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => {
      const schema = byType.get(type);
      // Every known type is documented as a webhook; a missing one is a bug in the document.
      if (!schema) throw new Error(`the OpenAPI document has no webhook for ${type}`);
      return [type, schema];
    }),
  ) as Record<WebhookEventType, Json>;
}

/** `value` with every component reference replaced by the component (siblings of `$ref` win). */
function inline(value: unknown, schemas: Record<string, Json>): unknown {
  if (Array.isArray(value)) return value.map((item) => inline(item, schemas));
  if (typeof value !== 'object' || value === null) return value;
  const { $ref, ...rest } = value as Json;
  const resolved = typeof $ref === 'string' && $ref.startsWith(COMPONENT) ? (inline(schemas[$ref.slice(COMPONENT.length)], schemas) as Json) : {};
  const own = Object.fromEntries(Object.entries(rest).map(([key, entry]) => [key, inline(entry, schemas)]));
  return { ...resolved, ...own };
}
