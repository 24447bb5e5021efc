import { escapeIdentifier } from 'pg';

/** Schema-qualified, quoted table names, spliced into SQL text once per storage (identifiers cannot be bound). */
export type Tables = Readonly<ReturnType<typeof tablesIn>>;

export function tablesIn(schema: string) {
  const qualified = (table: string) => `${escapeIdentifier(schema)}.${escapeIdentifier(table)}`;
  return {
    plants: qualified('plants'),
    deliveries: qualified('webhook_deliveries'),
    attempts: qualified('webhook_attempts'),
    endpoints: qualified('webhook_endpoints'),
    portalLinks: qualified('portal_links'),
    rateBudgets: qualified('webhook_rate_budgets'),
  };
}
