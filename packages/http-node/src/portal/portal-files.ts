import { PAGE_HEADERS, preparedOnFirstUse, servedFile, type DocsFiles } from '../docs/docs-files.js';

export interface PortalAsset {
  readonly contentType: string;
  readonly body: Uint8Array;
  /** The name carries a hash of the content (a new build renames it): browsers may keep it for good. @default false */
  readonly immutable?: boolean;
}

/** By name: `index.html` is served at `<base>/portal`, every other name at `<base>/portal/<name>`. */
export type PortalAssets = ReadonlyMap<string, PortalAsset>;

const PAGE = 'index.html';
const PREFIX = '/portal/';
// The page is revalidated on every load; the files it links to are named after their content.
const REVALIDATE = 'no-cache';
const FOREVER = 'public, max-age=31536000, immutable';

/** The portal's files, served as the docs page's are; the page lives at `/portal` only, which its relative links depend on. */
export function portalFiles(assets: PortalAssets): DocsFiles {
  if (!assets.has(PAGE)) throw new TypeError(`portal assets must hold ${PAGE}`);
  const byPath = new Map<string, PortalAsset>();
  for (const [name, asset] of assets) {
    if (name === PAGE) byPath.set('/portal', asset);
    // A name is one path segment: nothing can be reached above /portal/.
    else if (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) byPath.set(PREFIX + name, asset);
    else throw new TypeError(`portal asset names must be plain file names, got ${JSON.stringify(name)}`);
  }
  return preparedOnFirstUse(byPath, (asset) => {
    const body = Buffer.from(asset.body.buffer, asset.body.byteOffset, asset.body.byteLength);
    return servedFile(body, asset.contentType, asset.immutable === true ? FOREVER : REVALIDATE, PAGE_HEADERS);
  });
}
