import {
  createPlantStoreClient,
  type PlantStoreClient,
  type WebhookDelivery,
  type WebhookDeliveryStatus,
  type WebhookEndpoint,
  type WebhookEndpointUpdate,
  type WebhookEndpointWithSecret,
  type NewWebhookEndpoint,
  type WebhookEndpointStats,
  type WebhookEventType,
  type WebhookEventTypeInfo,
  type WebhookSession,
} from '@plant-store/client';

/** Who the page acts as: from `GET /webhooks/session`. */
export type Session = WebhookSession;

/** One entry of the event catalogue: a type, its description, the JSON Schema of its body and an example. */
export type EventTypeInfo = WebhookEventTypeInfo;

/** An endpoint's health: attempts and success rate over 1 h, 24 h and 7 d, and its last attempt. */
export type EndpointStats = WebhookEndpointStats;

/** The delivery log's filters; every one optional. */
export interface DeliveryFilter {
  readonly endpoint?: string;
  readonly status?: WebhookDeliveryStatus;
  readonly eventType?: WebhookEventType;
  readonly since?: Date;
  readonly until?: Date;
}

/** A delivery with its attempts, as the log shows it. */
export type PortalDelivery = WebhookDelivery;

export interface DeliveryPage {
  readonly deliveries: PortalDelivery[];
  /** Where the next page starts; absent on the last one. */
  readonly after?: string;
}

/** Everything the page asks of the service. */
export interface PortalApi {
  session(): Promise<Session>;
  eventTypes(): Promise<EventTypeInfo[]>;
  listEndpoints(): Promise<WebhookEndpoint[]>;
  endpointStats(id: string): Promise<EndpointStats>;
  createEndpoint(endpoint: NewWebhookEndpoint): Promise<WebhookEndpointWithSecret>;
  updateEndpoint(id: string, changes: WebhookEndpointUpdate): Promise<WebhookEndpoint>;
  deleteEndpoint(id: string): Promise<void>;
  getSecret(id: string): Promise<string>;
  rotateSecret(id: string): Promise<string>;
  sendTestEvent(id: string, eventType: WebhookEventType): Promise<PortalDelivery>;
  listDeliveries(filter: DeliveryFilter, page: { readonly limit: number; readonly after?: string }): Promise<DeliveryPage>;
  resend(deliveryId: string): Promise<void>;
  recover(endpointId: string, since: Date): Promise<number>;
}

/**
 * The API of the service that serves this page, as `token`. The page lives at
 * `<base>/portal`, so the API is at `<base>/`: derived from the page's own
 * address, which makes the page work under any base path.
 */
export function portalApi(token: string, pageUrl: string = location.href): PortalApi {
  const baseUrl = new URL('.', pageUrl);
  const client: PlantStoreClient = createPlantStoreClient({ baseUrl, token });
  const { endpoints, deliveries } = client.webhooks;
  return {
    session: () => client.webhooks.session(),
    eventTypes: () => client.webhooks.eventTypes(),
    async listEndpoints() {
      const all: WebhookEndpoint[] = [];
      for await (const endpoint of endpoints.list({ limit: 100 })) all.push(endpoint);
      return all;
    },
    endpointStats: (id) => endpoints.stats(id),
    createEndpoint: (endpoint) => endpoints.create(endpoint),
    updateEndpoint: (id, changes) => endpoints.update(id, changes),
    deleteEndpoint: (id) => endpoints.delete(id),
    getSecret: (id) => endpoints.getSecret(id),
    rotateSecret: (id) => endpoints.rotateSecret(id),
    sendTestEvent: (id, eventType) => endpoints.sendTest(id, eventType),
    async listDeliveries(filter, page) {
      // The filter and page are the client's query already; it leaves out what is not set.
      const result = await deliveries.listPage({ ...filter, ...page });
      return result.next?.after === undefined ? { deliveries: result.deliveries } : { deliveries: result.deliveries, after: result.next.after };
    },
    resend: (id) => deliveries.resend(id),
    recover: (id, since) => endpoints.recover(id, since),
  };
}
