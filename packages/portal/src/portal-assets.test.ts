import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portalAssets, type PortalAssets } from './portal-assets.js';

// The portal as the build makes it, built afresh from the current sources
// into a folder of the test's own (the package's dist/ is left alone).

const BUILD_SCRIPT = fileURLToPath(new URL('../scripts/build-bundle.mjs', import.meta.url));
const BUDGET_BYTES = 150 * 1024;

describe('the built portal', () => {
  let folder: string;
  let assets: PortalAssets;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'plant-store-portal-'));
    await promisify(execFile)(process.execPath, [BUILD_SCRIPT, '--outdir', folder]);
    assets = portalAssets(folder);
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const page = () => Buffer.from(assets.get('index.html')!.body).toString();

  it('is a page, one script and one stylesheet, the latter two named after their content', () => {
    const names = [...assets.keys()];
    expect(names).toHaveLength(3);
    expect(names).toContain('index.html');
    expect(names.filter((name) => /^portal-[A-Z0-9]+\.js$/.test(name))).toHaveLength(1);
    expect(names.filter((name) => /^portal-[A-Z0-9]+\.css$/.test(name))).toHaveLength(1);
    expect(assets.get('index.html')).toMatchObject({ contentType: 'text/html; charset=utf-8', immutable: false });
    for (const name of names.filter((item) => item !== 'index.html')) expect(assets.get(name)!.immutable).toBe(true);
  });

  it('links its files relative to the page, and has no inline script or style and nothing from elsewhere', () => {
    const html = page();
    const references = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1]);
    const files = [...assets.keys()].filter((name) => name !== 'index.html').map((name) => `portal/${name}`);
    expect(references.sort()).toEqual(['data:,', ...files].sort());
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=|javascript:/i);
    // Every script element loads a file.
    expect(html.match(/<script\b[^>]*>/g)).toEqual([expect.stringMatching(/\ssrc="portal\//)]);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it(`weighs less than ${BUDGET_BYTES / 1024} KiB gzipped`, () => {
    const gzipped = [...assets.values()].reduce((total, asset) => total + gzipSync(asset.body, { level: 9 }).length, 0);
    expect(gzipped).toBeLessThan(BUDGET_BYTES);
  });

  it('names the missing build when there is none', () => {
    const empty = mkdtempSync(join(tmpdir(), 'plant-store-portal-empty-'));
    try {
      expect(() => portalAssets(empty)).toThrow(`the portal is not built: ${join(empty, 'index.html')} is missing (run pnpm build)`);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
