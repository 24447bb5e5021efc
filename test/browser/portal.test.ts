import type { Browser, Locator, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '@plant-store/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ALL_SCOPES, type Principal } from '@plant-store/core';
import type { PortalAssets } from '@plant-store/portal';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { CHROMIUM, hasBrowser } from '../support/chromium.js';
import { startHost } from '../support/host-server.js';
import { buildPortal, launchBrowser, openTab, screenshot, seriousViolations, type PortalTab } from '../support/portal-browser.js';

// The tenant webhook portal in a real browser, driven as a person would
// (labels, roles, buttons, the keyboard), against the real service on
// SQLite with real webhook deliveries to a real receiver. Headless Chromium
// from the Debian package; without it the suite is skipped, except under
// CI=true, where it fails.
const skip = !hasBrowser && process.env.CI !== 'true';
const SKIP_REASON = `browser test skipped: ${CHROMIUM} is missing (apt-get install chromium)`;
if (skip) process.stderr.write(`${SKIP_REASON}\n`);

const LINK_REFUSED = 'This link is invalid, expired or was revoked; ask for a new one.';
const TOKEN_KEY = 'plant-store-portal-token';
/** Past 2^53: the page must show it digit for digit. */
const BIG_ID = '9007199254740993';

/** A principal of the library, for setting a tenant's scene without the page. */
const tenantPrincipal = (tenant: string): Principal => ({ subject: 'test', tenant, scopes: [...ALL_SCOPES] });

describe.skipIf(skip)(`the webhook portal in a browser${skip ? ` (${SKIP_REASON})` : ''}`, () => {
  let browser: Browser;
  let server: TestServer;
  let receiver: WebhookReceiver;
  let portal: { assets: PortalAssets; remove(): void };
  const tabs: PortalTab[] = [];

  beforeAll(async () => {
    if (!hasBrowser) throw new Error(`${CHROMIUM} is missing: CI must install the Debian package chromium (see .ci/run)`);
    [browser, portal, receiver] = await Promise.all([launchBrowser(), buildPortal(), startReceiver()]);
    // One attempt and one retry, soon: a failing receiver fails a delivery quickly.
    server = await startTestServer('sqlite', {
      portal: portal.assets,
      deliver: true,
      allowPrivateDestinations: true,
      webhooks: { retrySchedule: [20], endpointDestinationKinds: ['http', 'amqp'] },
    });
  });
  afterAll(async () => {
    await Promise.all(tabs.map((tab) => tab.close()));
    await browser?.close();
    await server?.close();
    await receiver?.close();
    portal?.remove();
  });

  async function open(url: string): Promise<PortalTab> {
    const tab = await openTab(browser, url);
    tabs.push(tab);
    return tab;
  }

  it('a read-write link: create an endpoint, a plant is delivered, rotate the secret, resend; the receiver verifies both', async () => {
    receiver.reply(() => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'thanks, got it' }));
    const link = await server.store.allTenants.portalLinks.mint({ tenant: 'a' });
    const tab = await open(`${server.url}/portal#token=${link.token}`);
    const { page } = tab;
    await expectText(page.getByTestId('session-tenant'), 'a');
    expect(await page.getByTestId('session-access').textContent()).toBe('Read and write');
    // The token left the address bar (and the history entry) at once; it lives in this tab's sessionStorage.
    expect(page.url()).toBe(`${server.url}/portal`);
    expect(await storedToken(page)).toContain(link.token);

    // Create an endpoint pointing at the receiver.
    const hookUrl = receiver.url('/portal-a');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('URL').fill(hookUrl);
    expect(await page.getByRole('checkbox', { name: 'plant.created' }).isChecked()).toBe(true);
    await page.getByLabel('Order', { exact: true }).selectOption('plant');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await expectText(page.getByRole('status'), `Created ${hookUrl}.`);
    const firstSecret = (await page.getByTestId('created-secret').textContent())!;
    expect(firstSecret).toMatch(/^whsec_/);
    const card = page.getByRole('article', { name: hookUrl });
    await expectText(card.getByTestId('endpoint-status'), 'Enabled');
    await expectText(card.getByTestId('endpoint-ordering'), 'per plant');

    // A plant created through the API is delivered.
    const created = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.owner}`, 'content-type': 'application/json' },
      body: `{"id": ${BIG_ID}, "name": "Monstera", "tag": "portal"}`,
    });
    expect(created.status).toBe(200);
    const [first] = await receiver.waitFor(1, { path: '/portal-a' });
    const messageId = first!.headers['webhook-id']!;

    // The delivery log shows it delivered, with its attempt.
    await page.getByRole('button', { name: 'Delivery log' }).click();
    // The focus moves to the section's heading, where a screen reader picks up.
    await expectFocus(page, 'id', 'view-heading');
    const delivery = page.locator(`[data-delivery-id="${messageId}"]`);
    await refreshUntil(page, async () => (await delivery.getByTestId('delivery-status').textContent()) === 'delivered');
    expect(await delivery.getByTestId('attempt-status').allTextContents()).toEqual(['200']);
    expect(await delivery.getByTestId('attempt-response').allTextContents()).toEqual(['thanks, got it']);
    expect(await delivery.getByTestId('payload').textContent()).toContain(`"id": ${BIG_ID}`);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'portal-deliveries');

    // Its health on the endpoints page; then a new secret.
    await page.getByRole('button', { name: 'Endpoints' }).click();
    await expectText(card.getByTestId('success-rate'), '100% (1 of 1)');
    await expectText(card.getByTestId('last-attempt'), 'status 200');
    // The chart of the last 24 hours is drawn in the page, hidden from screen readers, which read its table instead.
    expect(await card.getByTestId('health-chart').getAttribute('aria-hidden')).toBe('true');
    const bars = await card.locator('rect.bar-succeeded').evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('height'))));
    expect(bars).toHaveLength(24);
    expect(Math.max(...bars)).toBeGreaterThan(0);
    const hours = card.getByRole('table', { name: `Attempts per hour to ${hookUrl}, last 24 hours` });
    const cells = await hours
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => Number(cell.textContent))));
    expect(cells).toHaveLength(24);
    expect(cells.reduce((sum, [succeeded, failed]) => [sum[0]! + succeeded!, sum[1]! + failed!], [0, 0])).toEqual([1, 0]);
    await card.getByRole('button', { name: 'Rotate secret' }).click();
    await expectText(page.getByRole('status'), `Rotated the secret of ${hookUrl}`);
    const secondSecret = (await card.getByTestId('secret').textContent())!;
    expect(secondSecret).toMatch(/^whsec_/);
    expect(secondSecret).not.toBe(firstSecret);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'portal-endpoints');

    // Resend: the same message again, now signed with the new secret.
    await page.getByRole('button', { name: 'Delivery log' }).click();
    await delivery.getByRole('button', { name: 'Resend' }).click();
    await expectText(page.getByRole('status'), `Queued ${messageId} again.`);
    const [, second] = await receiver.waitFor(2, { path: '/portal-a' });
    expect(second!.headers['webhook-id']).toBe(messageId);
    expect(new Webhook(firstSecret).verify(first!.body, first!.headers)).toMatchObject({ name: 'Monstera' });
    expect(new Webhook(secondSecret).verify(second!.body, second!.headers)).toMatchObject({ name: 'Monstera' });
    // The first was signed before the rotation: the new secret does not verify it.
    expect(() => new Webhook(secondSecret).verify(first!.body, first!.headers)).toThrow();
    await refreshUntil(page, async () => (await delivery.getByTestId('attempt-status').count()) === 2);

    // A test event of another type, marked as a test in the log.
    await page.getByRole('button', { name: 'Endpoints' }).click();
    await card.getByLabel('Test event', { exact: true }).selectOption('plant.deleted');
    await card.getByRole('button', { name: 'Send test event' }).click();
    await expectText(page.getByRole('status'), `Queued a test plant.deleted event to ${hookUrl}`);
    const [, , test] = await receiver.waitFor(3, { path: '/portal-a' });
    expect(test!.headers['plant-store-event']).toBe('plant.deleted');
    expect(() => new Webhook(secondSecret).verify(test!.body, test!.headers)).not.toThrow();
    await page.getByRole('button', { name: 'Delivery log' }).click();
    await page.getByLabel('Event type').selectOption('plant.deleted');
    await page.getByRole('button', { name: 'Show deliveries' }).click();
    const testDelivery = page.locator(`[data-delivery-id="${test!.headers['webhook-id']}"]`);
    await expectText(testDelivery.getByRole('heading'), 'test');
    expect(await page.locator('[data-delivery-id]').count()).toBe(1);

    expect(tab.errors()).toEqual([]);
    expect(tab.requests().filter((url) => new URL(url).origin !== new URL(server.url).origin && !url.startsWith('data:'))).toEqual([]);
  });

  it('creates an Ed25519 endpoint with custom headers from the form: the receiver gets them and verifies with the public key shown', async () => {
    const tenant = 'keys';
    const link = await server.store.allTenants.portalLinks.mint({ tenant });
    const { page, errors } = await open(`${server.url}/portal#token=${link.token}`);
    const hookUrl = receiver.url('/portal-keys');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('URL').fill(hookUrl);
    await page.getByLabel('Custom headers (optional)').fill('X-Team: garden\nAuthorization: Bearer portal-1');
    await page.getByLabel('Signature').selectOption('ed25519');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await expectText(page.getByRole('status'), `Created ${hookUrl}.`);
    const publicKey = (await page.getByTestId('created-secret').textContent())!;
    expect(publicKey).toMatch(/^whpk_/);
    await expectText(page.getByRole('group', { name: 'Endpoint created' }), 'Public key:');
    const card = page.getByRole('article', { name: hookUrl });
    await expectText(card, 'X-Team, Authorization');

    await server.store.plants.create(tenantPrincipal(tenant), { id: 5, name: 'Fern' });
    const [request] = await receiver.waitFor(1, { path: '/portal-keys' });
    expect(request!.headers).toMatchObject({ 'x-team': 'garden', authorization: 'Bearer portal-1' });
    await expect(verifyWebhook(request!.body, request!.headers, publicKey)).resolves.toEqual({ id: 5n, name: 'Fern' });

    // A malformed line is caught in the form; clearing the field removes the headers.
    await card.getByRole('button', { name: 'Edit' }).click();
    const field = card.getByLabel('Custom headers (optional)');
    expect(await field.inputValue()).toBe('X-Team: garden\nAuthorization: Bearer portal-1');
    await field.fill('no colon here');
    await card.getByRole('button', { name: 'Save changes' }).click();
    await expectText(card.getByRole('alert'), 'Write each header as "Name: value"');
    await field.fill('Host: elsewhere');
    await card.getByRole('button', { name: 'Save changes' }).click();
    await expectText(card.getByRole('alert'), 'headers.Host is set by the service');
    await field.fill('');
    await card.getByRole('button', { name: 'Save changes' }).click();
    await expectText(page.getByRole('status'), `Saved ${hookUrl}.`);
    const [stored] = (await server.store.webhooks.endpoints.list(tenantPrincipal(tenant))).endpoints;
    expect(stored).not.toHaveProperty('headers');
    await card.getByRole('button', { name: 'Reveal secret' }).click();
    await expectText(card, `Public key: ${publicKey}`);
    // The refused header is the browser's one logged failure.
    expect(errors()).toEqual([expect.stringMatching(/status of 400/)]);
  });

  it('names a broker destination in the form and on the card, masks its credentials, and keeps them when the masked URL is saved back', async () => {
    const tenant = 'brokers';
    const link = await server.store.allTenants.portalLinks.mint({ tenant });
    const { page } = await open(`${server.url}/portal#token=${link.token}`);
    const brokerUrl = 'amqp://plants:s3cret-pass@rabbit.example:5672/?exchange=plants&routingKey=plant.created';
    const masked = 'amqp://***@rabbit.example:5672/?exchange=plants&routingKey=plant.created';
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'New endpoint' });
    await page.getByLabel('URL').fill('https://example.com/hooks');
    await expectText(form.getByTestId('url-kind'), 'Destination: HTTP.');
    await page.getByLabel('URL').fill(brokerUrl);
    await expectText(form.getByTestId('url-kind'), 'Destination: RabbitMQ.');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await expectText(page.getByRole('status'), `Created ${masked}.`);
    const card = page.getByRole('article', { name: masked });
    await expectText(card.getByTestId('endpoint-kind'), 'RabbitMQ');
    expect(await page.content()).not.toContain('s3cret-pass');

    // Edited with the URL as shown: the form says what *** means, and the stored credentials stay.
    await card.getByRole('button', { name: 'Edit' }).click();
    expect(await card.getByLabel('URL').inputValue()).toBe(masked);
    await expectText(card.getByTestId('url-kind'), 'Destination: RabbitMQ. Its credentials show as ***');
    await card.getByLabel('Description (optional)').fill('orders queue');
    await card.getByRole('button', { name: 'Save changes' }).click();
    await expectText(page.getByRole('status'), `Saved ${masked}.`);
    const [stored] = (await server.store.webhooks.endpoints.list(tenantPrincipal(tenant))).endpoints;
    expect(stored).toMatchObject({ url: brokerUrl, description: 'orders queue' });
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('tries a filter against the catalogue before saving it; the endpoint then gets only the plants it matches', async () => {
    const tenant = 'filters';
    const link = await server.store.allTenants.portalLinks.mint({ tenant });
    const { page, errors } = await open(`${server.url}/portal#token=${link.token}`);
    const hookUrl = receiver.url('/portal-filter');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('URL').fill(hookUrl);
    const field = page.getByLabel('Filter (optional)');
    await field.fill('{"data.name": {"$regex": "^M"}}');
    await page.getByRole('button', { name: 'Try the filter' }).click();
    await expectText(page.getByRole('alert'), 'filter.data.name.$regex is not an operator');
    await field.fill('{"data.tag": {"$in": ["indoor", "rare"]}}');
    await page.getByRole('button', { name: 'Try the filter' }).click();
    const results = page.getByRole('list', { name: 'Filter against the examples' });
    await expectText(results, 'plant.created: matches');
    await expectText(results, 'plant.deleted: does not match');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await expectText(page.getByRole('status'), `Created ${hookUrl}.`);
    const card = page.getByRole('article', { name: hookUrl });
    await expectText(card.getByTestId('endpoint-filter'), '{"data.tag":{"$in":["indoor","rare"]}}');
    // The plant.deleted example has no tag: its test event is refused, and nothing is queued.
    await card.getByLabel('Test event', { exact: true }).selectOption('plant.deleted');
    await card.getByRole('button', { name: 'Send test event' }).click();
    // The page announces a failure in its status line, in the error tone.
    const refused = page.locator('.status-error').getByText(/the example of plant\.deleted does not match the filter of endpoint .*: nothing was queued/);
    await refused.waitFor();

    await server.store.plants.create(tenantPrincipal(tenant), { id: 1, name: 'Oak', tag: 'outdoor' });
    await server.store.plants.create(tenantPrincipal(tenant), { id: 2, name: 'Fern', tag: 'indoor' });
    const [request] = await receiver.waitFor(1, { path: '/portal-filter' });
    expect(JSON.parse(request!.body)).toEqual({ id: 2, name: 'Fern', tag: 'indoor' });
    // Only the first plant's delivery is missing (nothing was queued for it); clearing the field removes the filter.
    expect((await server.store.webhooks.deliveries.list(tenantPrincipal(tenant))).deliveries).toHaveLength(1);
    await card.getByRole('button', { name: 'Edit' }).click();
    await card.getByLabel('Filter (optional)').fill('');
    await card.getByRole('button', { name: 'Save changes' }).click();
    await expectText(page.getByRole('status'), `Saved ${hookUrl}.`);
    const [stored] = (await server.store.webhooks.endpoints.list(tenantPrincipal(tenant))).endpoints;
    expect(stored).not.toHaveProperty('filter');
    // The refused operator and the refused test event are the browser's logged failures.
    expect(errors()).toEqual([expect.stringMatching(/status of 400/), expect.stringMatching(/status of 409/)]);
  });

  it("keeps a filter's integer past 2^53 digit for digit when an edit changes only the description", async () => {
    const tenant = 'filter-int64';
    const hookUrl = receiver.url('/portal-filter-int64');
    const filter = { 'data.id': 9223372036854775807n };
    const { endpoint } = await server.store.webhooks.endpoints.create(tenantPrincipal(tenant), { url: hookUrl, filter });
    const link = await server.store.allTenants.portalLinks.mint({ tenant });
    const { page, errors } = await open(`${server.url}/portal#token=${link.token}`);
    const card = page.getByRole('article', { name: hookUrl });
    await expectText(card.getByTestId('endpoint-filter'), '{"data.id":9223372036854775807}');
    await card.getByRole('button', { name: 'Edit' }).click();
    expect(await card.getByLabel('Filter (optional)').inputValue()).toContain('9223372036854775807');
    await card.getByLabel('Description (optional)').fill('only this changed');
    await card.getByRole('button', { name: 'Save changes' }).click();
    await expectText(page.getByRole('status'), `Saved ${hookUrl}.`);
    expect(await server.store.webhooks.endpoints.get(tenantPrincipal(tenant), endpoint.id)).toMatchObject({ description: 'only this changed', filter });
    await expectText(card.getByTestId('endpoint-filter'), '{"data.id":9223372036854775807}');
    expect(errors()).toEqual([]);
  });

  it('edit, disable, enable and delete an endpoint; recover its failed deliveries once the receiver is back', async () => {
    const tenant = 'ops';
    const hookUrl = receiver.url('/portal-ops');
    receiver.reply((request) => (request.path === '/portal-ops' ? { status: 500, body: 'down for maintenance' } : { status: 204 }));
    const { endpoint } = await server.store.webhooks.endpoints.create(tenantPrincipal(tenant), { url: hookUrl });
    await server.store.plants.create(tenantPrincipal(tenant), { id: 1, name: 'Fern' });
    // The first attempt and its one retry fail: the delivery has failed.
    await receiver.waitFor(2, { path: '/portal-ops' });

    const link = await server.store.allTenants.portalLinks.mint({ tenant });
    const { page, errors } = await open(`${server.url}/portal#token=${link.token}`);
    const card = page.getByRole('article', { name: hookUrl });

    // The failed delivery, found with the filters.
    await card.getByRole('button', { name: 'Show its deliveries' }).click();
    expect(await page.getByRole('form', { name: 'Filter deliveries' }).getByLabel('Endpoint').inputValue()).toBe(endpoint.id);
    await page.getByLabel('Status').selectOption('failed');
    await page.getByLabel('Created from', { exact: true }).fill('2000-01-01T00:00');
    const item = page.locator('[data-delivery-id]');
    await refreshUntil(page, async () => (await item.count()) === 1 && (await item.getByTestId('delivery-status').textContent()) === 'failed');
    expect(await item.getByTestId('attempt-status').allTextContents()).toEqual(['500', '500']);
    expect(await item.getByTestId('attempt-response').allTextContents()).toEqual(['down for maintenance', 'down for maintenance']);
    // A time range that excludes it.
    await page.getByLabel('Created before', { exact: true }).fill('2000-01-02T00:00');
    await page.getByRole('button', { name: 'Show deliveries' }).click();
    await expectText(page.getByRole('status'), 'No deliveries match.');

    // Recover once the receiver answers again.
    receiver.reply(() => ({ status: 204 }));
    const recover = page.getByRole('form', { name: 'Recover failed deliveries' });
    await recover.getByLabel('Endpoint').selectOption(endpoint.id);
    await recover.getByLabel('Failed deliveries created from').fill('2000-01-01T00:00');
    await recover.getByRole('button', { name: 'Recover failed deliveries' }).click();
    await expectText(page.getByRole('status'), 'Queued 1 failed delivery again.');
    await receiver.waitFor(3, { path: '/portal-ops' });

    // Edit, disable, enable, delete, from the keyboard.
    await page.getByRole('button', { name: 'Endpoints' }).click();
    await card.getByRole('button', { name: 'Edit' }).click();
    await expectFocus(page, 'value', hookUrl);
    await card.getByLabel('Description (optional)').fill('Greenhouse orders');
    await card.getByRole('checkbox', { name: 'plant.deleted' }).check();
    await page.keyboard.press('Enter');
    await expectText(page.getByRole('status'), `Saved ${hookUrl}.`);
    await expectText(card, 'Greenhouse orders');
    await expectText(card, 'plant.created, plant.deleted');
    await press(card.getByRole('button', { name: 'Disable' }));
    await expectText(card.getByTestId('endpoint-status'), 'Disabled');
    expect((await server.store.webhooks.endpoints.get(tenantPrincipal(tenant), endpoint.id)).status).toBe('disabled');
    // Enabling asks what to do with the messages kept meanwhile; Enter takes the default, sending them all.
    await press(card.getByRole('button', { name: 'Enable' }));
    await expectFocus(page, 'textContent', 'Enable endpoint');
    await page.keyboard.press('Enter');
    await expectText(card.getByTestId('endpoint-status'), 'Enabled');
    await expectText(page.getByRole('status'), `Enabled ${hookUrl}: the messages kept while it was disabled are being sent, in order.`);
    await press(card.getByRole('button', { name: 'Delete' }));
    // Focus moves to the confirmation, which says what deleting does.
    await expectFocus(page, 'textContent', 'Delete endpoint');
    await page.keyboard.press('Enter');
    await expectText(page.getByRole('status'), `Deleted ${hookUrl}.`);
    await card.waitFor({ state: 'detached' });
    expect(await server.store.webhooks.endpoints.list(tenantPrincipal(tenant))).toMatchObject({ endpoints: [] });
    expect(errors()).toEqual([]);
  });

  it('the event catalogue shows each type with its JSON Schema and an example', async () => {
    const link = await server.store.allTenants.portalLinks.mint({ tenant: 'catalogue', readOnly: true });
    const { page, errors } = await open(`${server.url}/portal#token=${link.token}`);
    await page.getByRole('button', { name: 'Event catalogue' }).click();
    for (const type of ['plant.created', 'plant.deleted']) {
      const entry = page.getByRole('article', { name: type });
      const schema = JSON.parse((await entry.getByRole('region', { name: 'JSON Schema' }).textContent())!) as { type?: string };
      expect(schema.type).toBe('object');
      const example = (await entry.getByRole('region', { name: 'Example' }).textContent())!;
      expect(example).toMatch(/"id": -?\d+/);
    }
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'portal-catalogue');
    expect(errors()).toEqual([]);
  });

  it('a read-only link shows everything, offers no write control, and a forced write is refused', async () => {
    const tenant = 'viewer';
    const hookUrl = receiver.url('/portal-viewer');
    receiver.reply(() => ({ status: 204 }));
    await server.store.webhooks.endpoints.create(tenantPrincipal(tenant), { url: hookUrl, description: 'Shop front' });
    await server.store.plants.create(tenantPrincipal(tenant), { id: 2, name: 'Cactus' });
    await receiver.waitFor(1, { path: '/portal-viewer' });

    const link = await server.store.allTenants.portalLinks.mint({ tenant, readOnly: true });
    const { page, errors } = await open(`${server.url}/portal#token=${link.token}`);
    await expectText(page.getByTestId('session-access'), 'Read-only');
    await expectText(page.getByTestId('read-only-notice'), 'read-only');
    const card = page.getByRole('article', { name: hookUrl });
    await expectText(card, 'Shop front');
    await expectText(card.getByTestId('last-attempt'), 'status 204');
    await screenshot(page, 'portal-read-only');
    expect(await seriousViolations(page)).toEqual([]);
    const WRITES = [
      'Add endpoint',
      'Edit',
      'Disable',
      'Enable',
      'Reveal secret',
      'Rotate secret',
      'Delete',
      'Send test event',
      'Resend',
      'Recover failed deliveries',
    ];
    expect(await visibleButtons(page, WRITES)).toEqual([]);

    await page.getByRole('button', { name: 'Delivery log' }).click();
    await refreshUntil(page, async () => (await page.locator('[data-delivery-id]').count()) === 1);
    expect(await visibleButtons(page, WRITES)).toEqual([]);

    // What the page hides, the service refuses: a write with the page's own token.
    const forced = await page.evaluate(`(async () => {
      const { token } = JSON.parse(sessionStorage.getItem(${JSON.stringify(TOKEN_KEY)}));
      const response = await fetch('../webhooks/endpoints', {
        method: 'POST',
        headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.com/hook' }),
      });
      return response.status;
    })()`);
    expect(forced).toBe(403);
    expect((await server.store.webhooks.endpoints.list(tenantPrincipal(tenant))).endpoints).toHaveLength(1);
    expect(errors()).toEqual([]);
  });

  it.each([
    ['a wrong link', async () => 'psl_AAAAAAAAAAAAAAAAAAAAAA_' + 'B'.repeat(43)],
    [
      'an expired link',
      async () => {
        const link = await server.store.allTenants.portalLinks.mint({ tenant: 'a', expiresInMs: 1 });
        await new Promise((resolve) => setTimeout(resolve, 5));
        return link.token;
      },
    ],
    [
      'a revoked link',
      async () => {
        const link = await server.store.allTenants.portalLinks.mint({ tenant: 'a' });
        await server.store.allTenants.portalLinks.revoke(link.id);
        return link.token;
      },
    ],
  ])('%s says so clearly and offers the sign-in form', async (name, token) => {
    const { page, errors } = await open(`${server.url}/portal#token=${await token()}`);
    await expectText(page.getByRole('alert'), LINK_REFUSED);
    expect(page.url()).toBe(`${server.url}/portal`);
    expect(await storedToken(page)).toBeNull();
    // The form is there, with the focus in it.
    await expectFocus(page, 'id', 'token');
    if (name === 'a wrong link') {
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'portal-sign-in-error');
    }
    expect(errors()).toEqual([]);
  });

  it('a token typed into the form signs in, from the keyboard; signing out forgets it', async () => {
    const { page, errors } = await open(`${server.url}/portal`);
    // The form takes the focus: a keyboard user types the token at once.
    await page.getByLabel('Access token').waitFor();
    await expectFocus(page, 'id', 'token');
    await page.keyboard.type(TOKENS.webhookReader);
    await page.keyboard.press('Enter');
    await expectText(page.getByTestId('session-tenant'), 'a');
    await expectText(page.getByTestId('session-access'), 'Read-only');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Access token').waitFor();
    expect(await storedToken(page)).toBeNull();

    await page.getByLabel('Access token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.getByRole('alert'), 'The service did not accept this token');
    expect(errors()).toEqual([]);
  });

  it('works under a base path in a host server, calling the API there', async () => {
    const host = await startHost('/api', { portal: portal.assets });
    try {
      const { page, requests, errors } = await open(`${host.url}/api/portal`);
      await page.getByLabel('Access token').fill('host-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expectText(page.getByTestId('session-tenant'), 'host');
      await page.getByText('No endpoints yet.').waitFor();
      expect(requests().filter((url) => !new URL(url).pathname.startsWith('/api/') && !url.startsWith('data:'))).toEqual([]);
      expect(requests().some((url) => url.endsWith('/api/webhooks/session'))).toBe(true);
      expect(errors()).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it("shows a message held behind an earlier one about the same plant as waiting behind it, not as 'no attempt yet'", async () => {
    // A service of its own that sends nothing: the plant's first message stays pending, so its second stays held.
    const quiet = await startTestServer('sqlite', { portal: portal.assets });
    try {
      const owner = tenantPrincipal('lines');
      const { endpoint } = await quiet.store.webhooks.endpoints.create(owner, {
        url: 'https://example.com/lines',
        eventTypes: ['plant.created', 'plant.deleted'],
        ordering: 'plant',
      });
      await quiet.store.plants.create(owner, { id: 8, name: 'Aloe' });
      await quiet.store.plants.delete(owner, 8);
      const [deleted, created] = (await quiet.store.webhooks.deliveries.list(owner, { endpoint: endpoint.id })).deliveries;
      const link = await quiet.store.allTenants.portalLinks.mint({ tenant: 'lines', readOnly: true });
      const tab = await openTab(browser, `${quiet.url}/portal#token=${link.token}`);
      try {
        const { page } = tab;
        await page.getByRole('button', { name: 'Delivery log' }).click();
        const held = page.locator(`[data-delivery-id="${deleted!.id}"]`);
        await expectText(held.getByTestId('waiting-behind'), `waiting behind ${created!.id}`);
        await expectText(held, `Waiting behind ${created!.id}, an earlier message about the same plant: no attempt before that one ends.`);
        expect(await held.getByText('No attempt yet.').count()).toBe(0);
        const first = page.locator(`[data-delivery-id="${created!.id}"]`);
        await expectText(first, 'No attempt yet.');
        expect(await first.getByTestId('waiting-behind').count()).toBe(0);
        expect(await seriousViolations(page)).toEqual([]);
        expect(tab.errors()).toEqual([]);
      } finally {
        await tab.close();
      }
    } finally {
      await quiet.close();
    }
  });

  it('enabling a disabled endpoint asks what to do with the messages kept meanwhile: discard them, or send those since a time', async () => {
    // A service of its own on the memory storage, keeping 2 messages per disabled endpoint, so that one more is dropped.
    const keeping = await startTestServer('memory', { portal: portal.assets, deliver: true, allowPrivateDestinations: true, parkedLimit: 2 });
    const hookUrl = receiver.url('/portal-parked');
    try {
      const owner = tenantPrincipal('parking');
      const { endpoint } = await keeping.store.webhooks.endpoints.create(owner, { url: hookUrl });
      await keeping.store.webhooks.endpoints.update(owner, endpoint.id, { status: 'disabled' });
      for (const id of [1, 2, 3]) await keeping.store.plants.create(owner, { id, name: `Kept ${id}` });
      const link = await keeping.store.allTenants.portalLinks.mint({ tenant: 'parking' });
      const tab = await openTab(browser, `${keeping.url}/portal#token=${link.token}`);
      try {
        const { page } = tab;
        const patches: string[] = [];
        page.on('request', (request) => void (request.method() === 'PATCH' && patches.push(request.postData() ?? '')));
        const card = page.getByRole('article', { name: hookUrl });
        await expectText(card.getByTestId('parked-dropped'), '1 message, the oldest first: more were kept than the service allows');

        // The kept messages in the delivery log.
        await card.getByRole('button', { name: 'Show its deliveries' }).click();
        await page.getByLabel('Status').selectOption('parked');
        const kept = page.locator('[data-delivery-id]');
        await refreshUntil(page, async () => (await kept.count()) === 2);
        expect(await kept.getByTestId('delivery-status').allTextContents()).toEqual(['parked', 'parked']);
        await expectText(kept.first().getByTestId('parked-note'), 'Kept while its endpoint is disabled');
        expect(await seriousViolations(page)).toEqual([]);

        // Discard them all.
        await page.getByRole('button', { name: 'Endpoints' }).click();
        await press(card.getByRole('button', { name: 'Enable', exact: true }));
        const choice = card.getByRole('form', { name: `Enable ${hookUrl}` });
        await expectFocus(page, 'textContent', 'Enable endpoint');
        expect(await choice.getByRole('radio', { name: 'Send them all, in order' }).isChecked()).toBe(true);
        expect(await seriousViolations(page)).toEqual([]);
        await choice.getByRole('radio', { name: 'Discard them all' }).check();
        await choice.getByRole('button', { name: 'Enable endpoint' }).click();
        await expectText(page.getByRole('status'), `Enabled ${hookUrl}: the messages kept while it was disabled were discarded.`);
        await expectText(card.getByTestId('endpoint-status'), 'Enabled');
        const discarded = (await keeping.store.webhooks.deliveries.list(owner, { endpoint: endpoint.id })).deliveries;
        expect(discarded.map((delivery) => [delivery.status, delivery.attempts.at(-1)?.error])).toEqual([
          ['failed', 'parked message discarded'],
          ['failed', 'parked message discarded'],
        ]);

        // Disabled again, one more plant is kept; sending those since a time (by default the endpoint's last change) sends it.
        await press(card.getByRole('button', { name: 'Disable' }));
        await expectText(card.getByTestId('endpoint-status'), 'Disabled');
        await keeping.store.plants.create(owner, { id: 4, name: 'Kept 4' });
        await press(card.getByRole('button', { name: 'Enable', exact: true }));
        await choice.getByRole('radio', { name: 'Send those created since a time; discard the older ones' }).check();
        const sinceField = choice.getByLabel('Kept messages created from');
        expect(await sinceField.inputValue()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
        await choice.getByRole('button', { name: 'Enable endpoint' }).click();
        await expectText(page.getByRole('status'), 'older ones were discarded.');
        const [request] = await receiver.waitFor(1, { path: '/portal-parked' });
        expect(request!.body).toBe('{"id":4,"name":"Kept 4"}');
        expect(patches.map((body) => Object.keys(JSON.parse(body) as object))).toEqual([['status', 'parked'], ['status'], ['status', 'parked', 'parkedSince']]);
        expect(receiver.at('/portal-parked')).toHaveLength(1);
        expect(tab.errors()).toEqual([]);
      } finally {
        await tab.close();
      }
    } finally {
      await keeping.close();
    }
  });

  // Runs last: it looks back over every link the tests above signed in with.
  it('a portal link never reaches the server: no request of any tab and no line of the server log carries the token or its fragment', async () => {
    const requested = tabs.flatMap((tab) => tab.requests());
    const logged = server.logs.map((entry) => JSON.stringify(entry));
    // Not vacuous: the links' pages were requested and logged, and their API calls were made.
    expect(requested.some((url) => new URL(url).pathname === '/portal')).toBe(true);
    expect(logged.some((line) => line.includes('"path":"/portal"'))).toBe(true);
    expect(logged.some((line) => line.includes('"path":"/webhooks/session"'))).toBe(true);
    for (const text of [...requested, ...logged]) {
      expect(text).not.toContain('psl_');
      expect(text).not.toContain('token=');
    }
  });
});

/** Waits until the element's text contains `text`. */
async function expectText(locator: Locator, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor();
}

// The suite is type-checked without the DOM's types (it runs in Node), so
// what runs in the page is written as expressions.

/** What the page keeps in this tab's sessionStorage under the portal's key. */
function storedToken(page: Page): Promise<string | null> {
  return page.evaluate(`sessionStorage.getItem(${JSON.stringify(TOKEN_KEY)})`);
}

/** Waits until the element with the keyboard focus has this text, value or id. */
async function expectFocus(page: Page, property: 'textContent' | 'value' | 'id', expected: string): Promise<void> {
  await vi.waitFor(async () => expect(await page.evaluate(`document.activeElement?.${property}`)).toBe(expected), { timeout: 2_000 });
}

/** Presses a button from the keyboard (focus, Enter), as a keyboard user would. */
async function press(button: Locator): Promise<void> {
  await button.focus();
  await button.page().keyboard.press('Enter');
}

/** Submits the delivery log's filters again until `done` holds (deliveries change on the server's time). */
async function refreshUntil(page: Page, done: () => Promise<boolean>): Promise<void> {
  await vi.waitFor(
    async () => {
      await page.getByRole('button', { name: 'Show deliveries' }).click();
      await page.locator('[aria-busy="true"]').waitFor({ state: 'detached' });
      if (!(await done())) throw new Error('not yet');
    },
    { timeout: 8_000, interval: 100 },
  );
}

/** Which of these button names are on the page. */
async function visibleButtons(page: Page, names: readonly string[]): Promise<string[]> {
  const present: string[] = [];
  for (const name of names) if ((await page.getByRole('button', { name, exact: true }).count()) > 0) present.push(name);
  return present;
}
