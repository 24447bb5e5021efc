import { HttpTransport, type PlantStoreClientOptions } from './http-transport.js';
import { plantsClient, type PlantsClient } from './plants-client.js';
import type { WebhooksClient } from './webhook-types.js';
import { webhooksClient } from './webhooks-client.js';

/** A typed client of one Plant Store service, acting as the tenant of its token. */
export interface PlantStoreClient {
  readonly plants: PlantsClient;
  readonly webhooks: WebhooksClient;
}

/** A client for the Plant Store HTTP API over fetch, for Node and browsers: exact `bigint` ids, typed errors (all `PlantStoreClientError`). */
export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  const transport = new HttpTransport(options);
  return { plants: plantsClient(transport), webhooks: webhooksClient(transport) };
}
