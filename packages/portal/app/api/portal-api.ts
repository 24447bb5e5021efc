import { createPlantStoreClient, PlantStoreClientError, type WebhookEndpoint, type WebhooksClient } from '@plant-store/client';

/**
 * The webhooks API of the service that serves this page, as `token`. The page lives at `<base>/portal`, so the API is
 * at `<base>/`: derived from the page's own address, which makes the page work under any base path.
 */
export function portalApi(token: string): WebhooksClient {
  return createPlantStoreClient({ baseUrl: new URL('.', location.href), token }).webhooks;
}

/** Every endpoint of the tenant, page after page. */
export async function allEndpoints(api: WebhooksClient): Promise<WebhookEndpoint[]> {
  const all: WebhookEndpoint[] = [];
  for await (const endpoint of api.endpoints.list({ limit: 100 })) all.push(endpoint);
  return all;
}

/** A failure as one sentence for the status region, with the request id to quote when the service gave one. */
export function describeError(error: unknown): string {
  if (!(error instanceof PlantStoreClientError)) return error instanceof Error ? error.message : String(error);
  const reference = error.requestId === undefined ? '' : ` (request ${error.requestId})`;
  if (error.code === 'forbidden') return `Not allowed: this sign-in may only read. ${error.message}${reference}`;
  return error.code === 'network' ? `The service could not be reached: ${error.message}` : `${error.message}${reference}`;
}

/** True for the service refusing the token itself (unknown, expired or revoked): the page signs out. */
export function isSignedOut(error: unknown): boolean {
  return error instanceof PlantStoreClientError && error.code === 'unauthenticated';
}
