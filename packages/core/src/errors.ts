import type { Scope } from './domain/principal.js';

/** Stable, machine-readable kinds of failure. Adapters map them (HTTP: statuses). */
export type PlantStoreErrorCode =
  | 'validation'
  | 'conflict'
  | 'limit_exceeded'
  | 'not_found'
  | 'unauthenticated'
  | 'forbidden'
  | 'storage'
  | 'unavailable'
  | 'configuration';

/** Builds an error without a stack trace (its `stack` is its first line), for expected outcomes answered, not debugged: capturing it cost more than a 404. */
export function withoutStack<E extends Error>(make: () => E): E {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Base of every error core raises on purpose. Messages are safe to show to callers. */
export abstract class PlantStoreError extends Error {
  abstract readonly code: PlantStoreErrorCode;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** One problem with an input, located by its path (`id`, `name`, `limit`, …). */
export interface ValidationIssue {
  readonly field: string;
  readonly message: string;
}

/** Input broke a rule. `field` names the first offending field (empty for the whole input). */
export class ValidationError extends PlantStoreError {
  readonly code = 'validation';
  readonly field: string;
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly [ValidationIssue, ...ValidationIssue[]]) {
    super(issues[0].message);
    this.field = issues[0].field;
    this.issues = issues;
  }

  /** One issue; built without a stack trace, as it is an answer to bad input (see withoutStack). */
  static of(field: string, message: string): ValidationError {
    return withoutStack(() => new ValidationError([{ field, message }]));
  }
}

/** A plant with that id exists in the tenant with other content. */
export class ConflictError extends PlantStoreError {
  readonly code = 'conflict';
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}

/** The caller already has as many of something as a configured limit allows (e.g. webhook endpoints per tenant); `limit` is that number. */
export class LimitExceededError extends PlantStoreError {
  readonly code = 'limit_exceeded';
  readonly limit: number;
  constructor(message: string, limit: number) {
    super(message);
    this.limit = limit;
  }
}

/** Nothing with that identity exists for the caller. */
export class NotFoundError extends PlantStoreError {
  readonly code = 'not_found';
}

/** Why a caller is not authenticated: no usable credentials, or a token nobody knows. */
export type UnauthenticatedReason = 'missing_credentials' | 'invalid_token';

/** The caller could not be authenticated. */
export class UnauthenticatedError extends PlantStoreError {
  readonly code = 'unauthenticated';
  readonly reason: UnauthenticatedReason;
  constructor(reason: UnauthenticatedReason, message = reason === 'invalid_token' ? 'invalid bearer token' : 'missing bearer token') {
    super(message);
    this.reason = reason;
  }
}

/** The caller is authenticated but lacks `requiredScope`. */
export class ForbiddenError extends PlantStoreError {
  readonly code = 'forbidden';
  readonly requiredScope: Scope;
  constructor(requiredScope: Scope) {
    super(`this operation requires the ${requiredScope} scope`);
    this.requiredScope = requiredScope;
  }
}

/** A storage adapter failed; `cause` holds the driver error (never shown to callers). */
export class StorageError extends PlantStoreError {
  readonly code = 'storage';
}

/** The authenticator's backing service (e.g. a JWKS endpoint) failed, so the caller could be neither accepted nor refused; `cause` holds why. */
export class AuthenticationUnavailableError extends PlantStoreError {
  readonly code = 'unavailable';
  /** Milliseconds until the backing service will be tried again, when the authenticator knows. */
  readonly retryAfterMs?: number;
  constructor(options?: { cause?: unknown; retryAfterMs?: number }) {
    super('authentication is temporarily unavailable', options);
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** A setting is invalid; `setting` names it (an option, a variable or a flag). */
export class ConfigurationError extends PlantStoreError {
  readonly code = 'configuration';
  readonly setting: string;
  constructor(setting: string, message: string) {
    super(`${setting}: ${message}`);
    this.setting = setting;
  }
}
