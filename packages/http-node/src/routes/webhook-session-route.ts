import { authenticateRequest } from '../http/authenticate-request.js';
import { sendJson } from '../http/send-json.js';
import type { Exchange, RouteContext } from './route-context.js';

/** Any authenticated principal may ask, whatever its scopes: a page learns from it which actions to offer. */
export async function getSession(context: RouteContext, exchange: Exchange): Promise<void> {
  const principal = await authenticateRequest(context.store, exchange);
  const session: Record<string, unknown> = { tenant: principal.tenant, subject: principal.subject, scopes: principal.scopes };
  if (principal.expiresAt !== undefined) session.expiresAt = new Date(principal.expiresAt).toISOString();
  sendJson(exchange.res, exchange.requestId, 200, JSON.stringify(session));
}
