import { HttpError } from '../http/http-error.js';
import { docsFile } from '../routes/docs-routes.js';
import type { Exchange } from '../routes/route-context.js';
import { portalFiles, type PortalAssets } from './portal-files.js';

/** Answers a request for the portal; undefined when the path is not one of its files (the API's routing goes on). */
export type PortalRoute = (exchange: Exchange, path: string | undefined) => Promise<void> | undefined;

const ALLOW = 'GET, HEAD';

/**
 * `GET <base>/portal` and its files. Like the API reference page, it needs
 * no credentials: the page signs in from the browser with a token the
 * server never sees in a URL. Other methods on its files are a 405.
 */
export function portalRoute(assets: PortalAssets): PortalRoute {
  const files = portalFiles(assets);
  return (exchange, path) => {
    if (path === undefined || !files.has(path)) return undefined;
    const method = exchange.req.method;
    if (method !== 'GET' && method !== 'HEAD') {
      return Promise.reject(new HttpError(405, `method ${method} is not allowed here; allowed: ${ALLOW}`, ['allow', ALLOW]));
    }
    return docsFile(files, exchange, path);
  };
}
