/** Machine-readable kinds of failure: core's codes as the service maps them to statuses (`storage` is its 503), then the client's own three. */
export type PlantStoreClientErrorCode =
  | 'validation'
  | 'conflict'
  | 'limit_exceeded'
  | 'not_found'
  | 'unauthenticated'
  | 'forbidden'
  | 'storage'
  | 'http'
  | 'network'
  | 'invalid_response';

/** Details every client error carries. */
export interface PlantStoreClientErrorInit {
  /** HTTP status of the response; 0 when none arrived. */
  readonly status: number;
  /** The service's `x-request-id`, when a response arrived (quote it when reporting a problem). */
  readonly requestId?: string | undefined;
  readonly cause?: unknown;
}

/** Base of every error the client raises for a request. `message` is the service's message when it sent one. */
export abstract class PlantStoreClientError extends Error {
  abstract readonly code: PlantStoreClientErrorCode;
  readonly status: number;
  readonly requestId: string | undefined;

  constructor(message: string, init: PlantStoreClientErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.requestId = init.requestId;
  }
}

/** 400: the request broke a rule; the message names the field or parameter. */
export class ValidationError extends PlantStoreClientError {
  readonly code = 'validation';
}

/** 409: a plant with that id exists with other content. */
export class ConflictError extends PlantStoreClientError {
  readonly code = 'conflict';
}

/** 422: the caller's tenant already has as many of something as the service allows (webhook endpoints); the message names the limit. */
export class LimitExceededError extends PlantStoreClientError {
  readonly code = 'limit_exceeded';
}

/** 404: nothing with that id exists for the caller's tenant. */
export class NotFoundError extends PlantStoreClientError {
  readonly code = 'not_found';
}

/** Why the service did not authenticate the caller, from its `WWW-Authenticate` challenge. */
export type UnauthenticatedReason = 'missing_credentials' | 'invalid_token';

/** 401: no usable token, or a token the service does not know. */
export class UnauthenticatedError extends PlantStoreClientError {
  readonly code = 'unauthenticated';
  readonly reason: UnauthenticatedReason;
  constructor(message: string, init: PlantStoreClientErrorInit & { readonly reason: UnauthenticatedReason }) {
    super(message, init);
    this.reason = init.reason;
  }
}

/** 403: the token lacks the scope the operation needs (`requiredScope`, from the challenge, when the service named it). */
export class ForbiddenError extends PlantStoreClientError {
  readonly code = 'forbidden';
  readonly requiredScope: string | undefined;
  constructor(message: string, init: PlantStoreClientErrorInit & { readonly requiredScope?: string | undefined }) {
    super(message, init);
    this.requiredScope = init.requiredScope;
  }
}

/** 503: the service's storage does not answer (core's `storage` failure); worth retrying later. */
export class UnavailableError extends PlantStoreClientError {
  readonly code = 'storage';
}

/** Anything else: another status (`http`), no response or a body cut off (`network`, `cause` holds fetch's error), or an undocumented answer (`invalid_response`). */
export class RequestFailedError extends PlantStoreClientError {
  readonly code: 'http' | 'network' | 'invalid_response';
  constructor(code: 'http' | 'network' | 'invalid_response', message: string, init: PlantStoreClientErrorInit) {
    super(message, init);
    this.code = code;
  }
}
