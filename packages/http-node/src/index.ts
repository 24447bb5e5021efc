// Public API of @plant-store/http-node: the inbound HTTP adapter only. The
// outbound webhook transport is @plant-store/http-node/webhook-transport; the
// runnable service (settings, CLI, logging, storage choice) is @plant-store/server.
export { createRequestListener, type RequestListener, type RequestListenerOptions } from './request-listener.js';
export { createFetchHandler, type FetchHandler, type FetchHandlerOptions } from './fetch/fetch-handler.js';
export { createPlantServer, type PlantServerOptions } from './create-plant-server.js';
export type { PortalAsset, PortalAssets } from './portal/portal-files.js';
export { openapiDocument, type OpenApiDocument, type OpenApiDocumentOptions } from './openapi/openapi-document.js';
export { DEFAULT_MAX_BODY_BYTES } from './http/read-body.js';
export { version } from './version.js';
