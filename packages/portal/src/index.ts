// Public API of @plant-store/portal: the built portal page, for a server to serve.
export { portalAssets, type PortalAsset, type PortalAssets } from './portal-assets.js';
