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
  switch (status) {
    case 400:
      return new ValidationError(message, init);
    case 401: {
      const reason = challengeParameter(challenge, 'error') === 'invalid_token' ? 'invalid_token' : 'missing_credentials';
      return new UnauthenticatedError(message, { ...init, reason });
    }
    case 403:
      return new ForbiddenError(message, { ...init, requiredScope: challengeParameter(challenge, 'scope') });
    case 404:
      return new NotFoundError(message, init);
    case 409:
      return new ConflictError(message, init);
    case 422:
      return new LimitExceededError(message, init);
    case 503:
      return new UnavailableError(message, init);
    default:
      return new RequestFailedError('http', message, init);
  }
}
