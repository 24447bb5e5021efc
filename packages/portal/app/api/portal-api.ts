import { createPlantStoreClient, type WebhookEndpoint, type WebhooksClient } from '@plant-store/client';

/** Everything the page asks of the service: the typed client's webhooks, as the signed-in token. */
export type PortalApi = WebhooksClient;

/**
 * The API of the service that serves this page, as `token`. The page lives at
 * `<base>/portal`, so the API is at `<base>/`: derived from the page's own
 * address, which makes the page work under any base path.
 */
export function portalApi(token: string, pageUrl: string = location.href): PortalApi {
  return createPlantStoreClient({ baseUrl: new URL('.', pageUrl), token }).webhooks;
}

/** Every endpoint of the tenant, page after page. */
export async function allEndpoints(api: PortalApi): Promise<WebhookEndpoint[]> {
  const all: WebhookEndpoint[] = [];
  for await (const endpoint of api.endpoints.list({ limit: 100 })) all.push(endpoint);
  return all;
}
