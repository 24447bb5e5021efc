import type { IncomingMessage } from 'node:http';
import { UnauthenticatedError, type PlantStore, type Principal } from '@plant-store/core';
import { bearerToken } from './bearer-token.js';

/**
 * The principal behind the request's bearer token. Rejects with
 * `UnauthenticatedError`: `missing_credentials` when the `Authorization`
 * header is absent or not `Bearer <token>`, `invalid_token` for an unknown
 * token. The token never leaves this function (not logged, not echoed).
 */
export function authenticateRequest(store: PlantStore, { req }: { readonly req: IncomingMessage }): Promise<Principal> {
  const header = req.headers.authorization;
  const token = bearerToken(header);
  if (token === undefined) {
    return Promise.reject(
      new UnauthenticatedError('missing_credentials', header === undefined ? 'missing bearer token' : 'the authorization header must be "Bearer <token>"'),
    );
  }
  return store.authenticate(token);
}
