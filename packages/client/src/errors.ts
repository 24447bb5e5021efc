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

/** The errors a status maps to, besides 401 and 403 (which read the challenge); any other is a `RequestFailedError`. */
const ERRORS_BY_STATUS: Readonly<Record<number, new (message: string, init: PlantStoreClientErrorInit) => PlantStoreClientError>> = {
  400: ValidationError,
  404: NotFoundError,
  409: ConflictError,
  422: LimitExceededError,
  503: UnavailableError,
};

/** The message of the service's error body, `{"error": <status>, "message": <text>}`. */
function serviceMessage(text: string): string | undefined {
  try {
    // Error bodies hold no ids, so plain JSON.parse is exact here.
    const message: unknown = (JSON.parse(text) as { message?: unknown } | null)?.message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined; // Not JSON (a proxy's HTML page, say): the status line says it.
  }
}

/** One `name="value"` parameter of a `WWW-Authenticate` challenge. */
function challengeParameter(challenge: string | null, name: string): string | undefined {
  return new RegExp(`\\b${name}="([^"]*)"`).exec(challenge ?? '')?.[1];
}

/** The typed error for a response that is not a success. Reads (and so consumes) the body. */
export async function errorFromResponse(response: Response): Promise<PlantStoreClientError> {
  const text = await response.text().catch(() => '');
  const { status } = response;
  const message = serviceMessage(text) ?? `HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const init: PlantStoreClientErrorInit = { status, requestId: response.headers.get('x-request-id') ?? undefined };
  const challenge = response.headers.get('www-authenticate');
  if (status === 401) {
    const reason = challengeParameter(challenge, 'error') === 'invalid_token' ? 'invalid_token' : 'missing_credentials';
    return new UnauthenticatedError(message, { ...init, reason });
  }
  if (status === 403) return new ForbiddenError(message, { ...init, requiredScope: challengeParameter(challenge, 'scope') });
  const ErrorOfStatus = ERRORS_BY_STATUS[status];
  return ErrorOfStatus ? new ErrorOfStatus(message, init) : new RequestFailedError('http', message, init);
}
