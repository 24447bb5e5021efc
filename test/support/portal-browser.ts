import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { portalAssets, type PortalAssets } from '@plant-store/portal';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js';

// What the portal's browser suites share: the browser (launched as the docs
// page's suite does, from ./chromium.ts), the portal built afresh from its sources, a page that
// records what went wrong in it, axe-core, and screenshots.

const ROOT = join(import.meta.dirname, '..', '..');
/** Screenshots of each page: test artefacts, not committed. */
const ARTIFACTS = join(ROOT, 'test', 'browser', 'artifacts');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * The portal built from its current sources into a folder of the suite's own
 * (a stale `pnpm build` in the package is never what is tested).
 */
export async function buildPortal(): Promise<{ assets: PortalAssets; remove(): void }> {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-portal-'));
  await promisify(execFile)(process.execPath, [join(ROOT, 'packages', 'portal', 'scripts', 'build-bundle.mjs'), '--outdir', folder]);
  return { assets: portalAssets(folder), remove: () => rmSync(folder, { recursive: true, force: true }) };
}

export interface PortalTab {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Every URL the page requested. */
  requests(): string[];
  /**
   * Console errors (a Content-Security-Policy violation among them) and
   * uncaught exceptions; the browser's own line for an API call answered
   * 401 or 403 is left out, as a refused token or write is what some tests do.
   */
  errors(): string[];
  close(): Promise<void>;
}

/** A fresh tab (its own sessionStorage) at `url`. */
export async function openTab(browser: Browser, url: string): Promise<PortalTab> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  // Fail with the step that hung, well within the test's own timeout.
  page.setDefaultTimeout(10_000);
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 40[13]/.test(message.text())) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(url);
  return { page, context, requests: () => [...requests], errors: () => [...errors], close: () => context.close() };
}

interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: string[];
}

/** Violations axe-core finds in the page as it is now, of serious or critical impact (`id: help` each). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: an inline <script> would be
  // refused by the page's own policy, which the tests keep in force.
  if (!(await page.evaluate("'axe' in window"))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<AxeViolation[]>(`axe.run().then((result) => result.violations.map(({ id, impact, help, nodes }) =>
    ({ id, impact, help, targets: nodes.map((node) => JSON.stringify(node.target)) })))`);
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.help} (${violation.targets.join(', ')})`);
}

/** Saves a full-page screenshot as `test/browser/artifacts/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
