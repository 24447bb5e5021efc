import type { IncomingMessage } from 'node:http';
import { UnauthenticatedError, type PlantStore, type Principal, type Scope } from '@plant-store/core';
import { requireScope } from '@plant-store/core/adapter';
import { bearerToken } from './bearer-token.js';

/** The principal behind the request's bearer token, else an `UnauthenticatedError`; the token is never logged nor echoed. */
export async function authenticateRequest(store: PlantStore, { req }: { readonly req: IncomingMessage }): Promise<Principal> {
  const header = req.headers.authorization;
  const token = bearerToken(header);
  if (token !== undefined) return store.authenticate(token);
  throw new UnauthenticatedError('missing_credentials', header === undefined ? 'missing bearer token' : 'the authorization header must be "Bearer <token>"');
}

export async function authorizeRequest(store: PlantStore, exchange: { readonly req: IncomingMessage }, scope: Scope): Promise<Principal> {
  const principal = await authenticateRequest(store, exchange);
  requireScope(principal, scope);
  return principal;
}
