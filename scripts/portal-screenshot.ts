// Usage: node --import tsx scripts/portal-screenshot.ts [out.png]   (after `pnpm build`)
//
// Takes the portal screenshot of docs/portal.md (docs/images/portal.png by
// default): the built service on a scratch SQLite file, a real receiver, an
// endpoint ordered per plant with a custom header, one plant delivered, then
// the portal opened from a portal link in headless Chromium (the Debian
// package, as the browser suites use it) and its secret rotated, as a tenant
// would. Run it again whenever the endpoints page changes.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/support/chromium.js';
import { ROOT, runCli, startServe } from '../test/support/cli-process.js';
import { startReceiver } from '../test/support/webhook-receiver.js';

const TOKEN = 'portal-screenshot';
const TENANT = 'acme';

const output = resolve(process.argv[2] ?? join(ROOT, 'docs', 'images', 'portal.png'));
const folder = mkdtempSync(join(tmpdir(), 'plant-store-portal-screenshot-'));
const storage = ['--storage', 'sqlite', '--db', join(folder, 'portal.db')];
const receiver = await startReceiver();
receiver.reply(() => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'thanks, got it' }));
// The receiver listens on loopback, which tenant endpoints may reach only when allowed.
const service = await startServe([...storage, '--port', '0', '--tokens', `${TOKEN}=${TENANT}`, '--log-level', 'error'], {
  from: 'build',
  env: { PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' },
});
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
try {
  const call = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response.json() as Promise<Record<string, unknown>>;
  };
  const url = receiver.url('/hooks/plants');
  await call('POST', '/webhooks/endpoints', {
    url,
    eventTypes: ['plant.created', 'plant.deleted'],
    description: 'Greenhouse orders',
    ordering: 'plant',
    headers: { 'X-Team': 'garden' },
  });
  await call('POST', '/plants', { id: 1, name: 'Monstera', tag: 'indoor' });
  await receiver.waitFor(1);
  // The page shows the attempt once the service has recorded it.
  for (let tries = 0; ; tries++) {
    const deliveries = await fetch(`${service.url}/webhooks/deliveries`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.json());
    if ((deliveries as { status: string }[])[0]?.status === 'delivered') break;
    if (tries === 100) throw new Error('the delivery was not recorded as delivered');
    await sleep(100);
  }

  const minted = await runCli(['portal-link', '--tenant', TENANT, '--base-url', service.url, ...storage], { from: 'build' });
  const link = /\S+#token=\S+/.exec(minted.stdout)?.[0];
  if (minted.code !== 0 || link === undefined) throw new Error(`portal-link failed: ${minted.stderr}`);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(link);
  const card = page.getByRole('article', { name: url });
  await card.getByTestId('endpoint-ordering').waitFor();
  await card.getByTestId('last-attempt').filter({ hasText: 'status 200' }).waitFor();
  await card.getByRole('button', { name: 'Rotate secret' }).click();
  await page.getByRole('status').filter({ hasText: 'Rotated the secret' }).waitFor();
  await page.screenshot({ path: output });
  process.stdout.write(`saved ${output}\n`);
} finally {
  await browser.close();
  await service.stop();
  await receiver.close();
  rmSync(folder, { recursive: true, force: true });
}
