import {
  ConflictError,
  ForbiddenError,
  LimitExceededError,
  NotFoundError,
  RequestFailedError,
  UnauthenticatedError,
  UnavailableError,
  ValidationError,
  type PlantStoreClientError,
  type PlantStoreClientErrorInit,
} from './errors.js';

/** The errors a status maps to, besides 401 and 403 (which read the challenge); any other is a `RequestFailedError`. */
const ERRORS_BY_STATUS: Readonly<Record<number, new (message: string, init: PlantStoreClientErrorInit) => PlantStoreClientError>> = {
  400: ValidationError,
  404: NotFoundError,
  409: ConflictError,
  422: LimitExceededError,
  503: UnavailableError,
};

/** The service's error body: `{"error": <status>, "message": <text>}`. */
function serviceMessage(text: string): string | undefined {
  try {
    // Error bodies hold no ids, so plain JSON.parse is exact here.
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string') {
      return (body as { message: string }).message;
    }
  } catch {
    // Not JSON (a proxy's HTML page, say): fall back to the status line.
  }
  return undefined;
}

/** One `name="value"` parameter of a `WWW-Authenticate` challenge. */
function challengeParameter(challenge: string | null, name: string): string | undefined {
  if (challenge === null) return undefined;
  return new RegExp(`\\b${name}="([^"]*)"`).exec(challenge)?.[1];
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
