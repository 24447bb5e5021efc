import type { Context } from '@opentelemetry/api';

/**
 * What a principal may do: read plants (list, get), write plants (create,
 * delete), and read or manage its tenant's webhook endpoints and deliveries.
 */
export type Scope = 'plants:read' | 'plants:write' | 'webhooks:read' | 'webhooks:write';

export const ALL_SCOPES: readonly Scope[] = ['plants:read', 'plants:write', 'webhooks:read', 'webhooks:write'];

/** An authenticated caller. Every operation sees only its tenant's plants. */
export interface Principal {
  readonly subject: string;
  readonly tenant: string;
  readonly scopes: readonly Scope[];
  /** When the credentials stop working (epoch ms), when the authenticator knows it (portal links). */
  readonly expiresAt?: number;
  /**
   * The OpenTelemetry context of the call (the request's span, say): the
   * store runs its storage calls for this principal inside it, so their
   * spans are its children even where no context follows `await`. The HTTP
   * listener sets it per request. Without it, the context active when each
   * storage call is made applies (a host whose SDK uses `AsyncLocalStorage`
   * needs nothing more). Never set it on a principal shared between calls.
   */
  readonly traceContext?: Context;
}

/**
 * A copy of `principal` carrying `traceContext`: a copy per call, as an
 * authenticator may hand out one principal object for every request with
 * its token. Its fields are written out, not spread or assigned: on Node 20
 * both of those take V8's generic path, several times the cost of a literal,
 * on every traced request. A principal is what this interface names;
 * anything else an authenticator put on it is not carried over.
 */
export function principalInTrace(principal: Principal, traceContext: Context): Principal {
  const { subject, tenant, scopes, expiresAt } = principal;
  return expiresAt === undefined ? { subject, tenant, scopes, traceContext } : { subject, tenant, scopes, expiresAt, traceContext };
}
