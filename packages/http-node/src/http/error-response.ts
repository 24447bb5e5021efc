import {
  AuthenticationUnavailableError,
  ConflictError,
  ForbiddenError,
  LimitExceededError,
  NotFoundError,
  StorageError,
  UnauthenticatedError,
  ValidationError,
} from '@plant-store/core';
import { HttpError } from './http-error.js';
import { INVALID_TOKEN_CHALLENGE, MISSING_CREDENTIALS_CHALLENGE, insufficientScopeChallenge } from './www-authenticate.js';

export interface ErrorResponse {
  readonly status: number;
  readonly message: string;
  readonly headers: readonly string[];
}

const NO_HEADERS: readonly string[] = [];
const STORAGE_UNAVAILABLE: ErrorResponse = { status: 503, message: 'storage unavailable', headers: NO_HEADERS };
// An identity provider's outage is usually short: come back soon, not hammer (or when the authenticator says).
const AUTHENTICATION_UNAVAILABLE: ErrorResponse = { status: 503, message: 'authentication unavailable', headers: ['retry-after', '5'] };
const INTERNAL_ERROR: ErrorResponse = { status: 500, message: 'internal server error', headers: NO_HEADERS };

/** Typed errors keep their (safe) message; anything else gets a generic one, so driver details never reach a caller. */
export function errorResponse(error: unknown): ErrorResponse {
  if (error instanceof ValidationError) return { status: 400, message: error.message, headers: NO_HEADERS };
  if (error instanceof HttpError) return { status: error.status, message: error.message, headers: error.headers };
  if (error instanceof UnauthenticatedError) {
    const challenge = error.reason === 'invalid_token' ? INVALID_TOKEN_CHALLENGE : MISSING_CREDENTIALS_CHALLENGE;
    return { status: 401, message: error.message, headers: ['www-authenticate', challenge] };
  }
  if (error instanceof ForbiddenError) {
    return { status: 403, message: error.message, headers: ['www-authenticate', insufficientScopeChallenge(error.requiredScope)] };
  }
  if (error instanceof NotFoundError) return { status: 404, message: error.message, headers: NO_HEADERS };
  if (error instanceof ConflictError) return { status: 409, message: error.message, headers: NO_HEADERS };
  if (error instanceof LimitExceededError) return { status: 422, message: error.message, headers: NO_HEADERS };
  if (error instanceof StorageError) return STORAGE_UNAVAILABLE;
  if (error instanceof AuthenticationUnavailableError) return authenticationUnavailable(error.retryAfterMs);
  return INTERNAL_ERROR;
}

// At least 1 s: an immediate retry would only meet the same failure.
function authenticationUnavailable(retryAfterMs: number | undefined): ErrorResponse {
  if (retryAfterMs === undefined) return AUTHENTICATION_UNAVAILABLE;
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return { ...AUTHENTICATION_UNAVAILABLE, headers: ['retry-after', String(seconds)] };
}

export function errorBody(status: number, message: string): string {
  return `{"error":${status},"message":${JSON.stringify(message)}}`;
}
