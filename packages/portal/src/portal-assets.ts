import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file of the portal, ready to serve. */
export interface PortalAsset {
  readonly contentType: string;
  readonly body: Uint8Array;
  /** True for files named by a hash of their content (a browser may keep them for good); false for `index.html`, so a new build shows at once. */
  readonly immutable: boolean;
}

/** The portal's files by name: `index.html` (the page) and the script and stylesheet it links to. */
export type PortalAssets = ReadonlyMap<string, PortalAsset>;

/** Where `pnpm build` writes the bundle; the same relative place from `src/` (tests) and `dist/` (the build). */
const BUILT_FOLDER = fileURLToPath(new URL('../dist/assets/', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** The built portal (`index.html`, a script, a stylesheet) read into memory from `dist/assets` (or `folder`); throws when it is not built, so a service fails at start. */
export function portalAssets(folder: string = BUILT_FOLDER): PortalAssets {
  if (!existsSync(join(folder, 'index.html'))) {
    throw new Error(`the portal is not built: ${join(folder, 'index.html')} is missing (run pnpm build)`);
  }
  const assets = new Map<string, PortalAsset>();
  for (const name of readdirSync(folder).sort()) {
    const contentType = CONTENT_TYPES[extname(name)];
    // Only what the page links to is served; anything else left in the folder is not.
    if (contentType === undefined) continue;
    assets.set(name, { contentType, body: readFileSync(join(folder, name)), immutable: name !== 'index.html' });
  }
  return assets;
}
