import type { Context } from '@opentelemetry/api';
import { UnauthenticatedError, type PlantStore, type Principal } from '@plant-store/core';
import type { Exchange } from '../routes/route-context.js';
import { bearerToken } from './bearer-token.js';

/**
 * The principal behind the request's bearer token. Rejects with
 * `UnauthenticatedError`: `missing_credentials` when the `Authorization`
 * header is absent or not `Bearer <token>`, `invalid_token` for an unknown
 * token. The token never leaves this function (not logged, not echoed).
 *
 * In a traced request the principal carries the request's trace context,
 * so the store's storage calls for it are children of the request's span.
 */
export function authenticateRequest(store: PlantStore, { req, traceContext }: Pick<Exchange, 'req' | 'traceContext'>): Promise<Principal> {
  const header = req.headers.authorization;
  const token = bearerToken(header);
  if (token === undefined) {
    return Promise.reject(
      new UnauthenticatedError(
        'missing_credentials',
        header === undefined ? 'missing bearer token' : 'the authorization header must be "Bearer <token>"',
      ),
    );
  }
  const principal = store.authenticate(token);
  return traceContext === undefined ? principal : principal.then((found) => inTrace(found, traceContext));
}

/**
 * A copy of the principal carrying the trace context: a copy per request,
 * as the authenticator may hand out one principal object for every request
 * with its token. Its fields are written out, not spread or assigned: on
 * Node 20 both of those take V8's generic path, several times the cost of
 * a literal, on every traced request. A principal is what its interface
 * names; anything else an authenticator put on it is not carried over.
 */
function inTrace(found: Principal, traceContext: Context): Principal {
  return found.expiresAt === undefined
    ? { subject: found.subject, tenant: found.tenant, scopes: found.scopes, traceContext }
    : { subject: found.subject, tenant: found.tenant, scopes: found.scopes, expiresAt: found.expiresAt, traceContext };
}
