import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RequestFailedError,
  UnauthenticatedError,
  ValidationError,
  type PlantStoreClientError,
} from '@plant-store/client';
import type { PortalDelivery } from './portal-api.js';

// The routes the typed client does not offer yet, called through fetch with
// the same bearer token and turned into the client's error types, so the
// page handles every failure one way.

export interface ExtraRoutes {
  sendTestEvent(id: string, eventType: string): Promise<PortalDelivery>;
}

const date = (value: unknown): Date | undefined => (typeof value === 'string' ? new Date(value) : undefined);

export function extraRoutes(baseUrl: URL, token: string): ExtraRoutes {
  async function call(method: string, path: string, body?: unknown): Promise<unknown> {
    const url = new URL(path.replace(/^\//, ''), baseUrl);
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body: body === undefined ? null : JSON.stringify(body) });
    } catch (error) {
      throw new RequestFailedError('network', `${method} ${url.pathname} failed: ${(error as Error).message}`, { status: 0, cause: error });
    }
    const text = await response.text();
    if (!response.ok) throw errorOf(response, text);
    return JSON.parse(text) as unknown;
  }
  const segment = (id: string) => encodeURIComponent(id);
  return {
    async sendTestEvent(id, eventType) {
      const raw = (await call('POST', `/webhooks/endpoints/${segment(id)}/test`, { eventType })) as Record<string, unknown>;
      return { ...raw, createdAt: date(raw['createdAt']) } as unknown as PortalDelivery;
    },
  };
}

function errorOf(response: Response, text: string): PlantStoreClientError {
  let message = `the service answered ${response.status}`;
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // Not the usual error shape: keep the status line.
  }
  const init = { status: response.status, requestId: response.headers.get('x-request-id') ?? undefined };
  switch (response.status) {
    case 400:
      return new ValidationError(message, init);
    case 401:
      return new UnauthenticatedError(message, { ...init, reason: 'invalid_token' });
    case 403:
      return new ForbiddenError(message, init);
    case 404:
      return new NotFoundError(message, init);
    case 409:
      return new ConflictError(message, init);
    default:
      return new RequestFailedError('http', message, init);
  }
}
