import { describe, expect, it } from 'vitest';
import { openapiDocument } from '../openapi/openapi-document.js';
import { idSegmentOf, matchRoute, ROUTES } from './route-table.js';

const docs = { has: (path: string) => path === '/docs' || path === '/docs/swagger-ui.css' };
const allParts = { docs, metrics: {} };

describe('the route table', () => {
  it.each([
    ['/plants', '/plants'],
    ['/plants/1', '/plants/{id}'],
    ['/plants/%7Bid%7D', '/plants/{id}'],
    ['/healthz', '/healthz'],
    ['/readyz', '/readyz'],
    ['/openapi.json', '/openapi.json'],
    ['/webhooks/endpoints', '/webhooks/endpoints'],
    ['/webhooks/endpoints/ep_1', '/webhooks/endpoints/{id}'],
    ['/webhooks/endpoints/ep_1/secret', '/webhooks/endpoints/{id}/secret'],
    ['/webhooks/endpoints/ep_1/rotate-secret', '/webhooks/endpoints/{id}/rotate-secret'],
    ['/webhooks/endpoints/ep_1/recover', '/webhooks/endpoints/{id}/recover'],
    ['/webhooks/endpoints/ep_1/stats', '/webhooks/endpoints/{id}/stats'],
    ['/webhooks/endpoints/ep_1/test', '/webhooks/endpoints/{id}/test'],
    ['/webhooks/deliveries', '/webhooks/deliveries'],
    ['/webhooks/deliveries/msg_1', '/webhooks/deliveries/{id}'],
    ['/webhooks/deliveries/msg_1/resend', '/webhooks/deliveries/{id}/resend'],
    ['/webhooks/session', '/webhooks/session'],
    ['/webhooks/event-types', '/webhooks/event-types'],
    ['/docs', '/docs'],
    ['/docs/swagger-ui.css', '/docs'],
    ['/metrics', '/metrics'],
  ])('matches %s to %s', (path, template) => {
    expect(matchRoute(path, allParts)?.template).toBe(template);
  });

  it.each([
    '/',
    '',
    '/plants/',
    '//plants',
    '/plants/1/',
    '/plants/1/extra',
    '/plantsx',
    '/webhooks',
    '/webhooks/',
    '/webhooks/endpoints/',
    '/webhooks/endpoints//secret',
    '/webhooks/endpoints/ep_1/secret/',
    '/webhooks/endpoints/ep_1/secretx',
    '/webhooks/endpoints/ep_1/resend',
    '/webhooks/deliveries/msg_1/secret',
    '/webhooks/session/x',
    '/webhooks/event-types/x',
    '/docs/',
    '/docs/other.js',
    '/metrics/x',
    '/healthz/',
  ])('matches nothing at %j', (path) => {
    expect(matchRoute(path, allParts)).toBeUndefined();
  });

  it('reaches every route of the table', () => {
    for (const route of ROUTES) {
      const path = route.template === '/docs' ? '/docs' : route.template.replace('{id}', '1');
      expect(matchRoute(path, allParts), path).toBe(route);
    }
  });

  it('leaves out the routes of parts that are off', () => {
    expect(matchRoute('/metrics', {})).toBeUndefined();
    expect(matchRoute('/docs', {})).toBeUndefined();
    expect(matchRoute('/docs', { docs: { has: () => false } })).toBeUndefined();
    expect(matchRoute('/plants', {})?.template).toBe('/plants');
  });

  it('matches the portal page and its files to one route, only when the portal part is on', () => {
    const portal = { has: (path: string) => path === '/portal' || path === '/portal/app.js' };
    expect(matchRoute('/portal', { portal })?.template).toBe('/portal');
    expect(matchRoute('/portal/app.js', { portal })).toBe(matchRoute('/portal', { portal }));
    expect(matchRoute('/portal/other.js', { portal })).toBeUndefined();
    expect(matchRoute('/portal', {})).toBeUndefined();
    expect(matchRoute('/portal', { portal })?.allow).toBe('GET, HEAD');
    expect(ROUTES.some((route) => route.template === '/portal')).toBe(false);
  });

  it('gives the raw id segment at the offset of {id}', () => {
    const route = matchRoute('/webhooks/endpoints/ep%201/stats', {})!;
    expect(idSegmentOf('/webhooks/endpoints/ep%201/stats', route)).toBe('ep%201');
    expect(idSegmentOf('/plants/42', matchRoute('/plants/42', {})!)).toBe('42');
  });

  it('says Allow as the 405s always have: GET brings HEAD', () => {
    expect(Object.fromEntries(ROUTES.map((route) => [route.template, route.allow]))).toMatchObject({
      '/plants': 'GET, HEAD, POST',
      '/plants/{id}': 'GET, HEAD, DELETE',
      '/webhooks/endpoints/{id}': 'GET, HEAD, PATCH, DELETE',
      '/webhooks/endpoints/{id}/rotate-secret': 'POST',
      '/metrics': 'GET, HEAD',
    });
  });

  it('has exactly the paths and operations of the OpenAPI document (docs and metrics on)', () => {
    const document = openapiDocument('test', { docs: true, metrics: true });
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => key !== 'parameters')
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    const routed = ROUTES.flatMap((route) => Object.keys(route.methods).map((method) => `${method} ${route.template}`));
    expect(routed.sort()).toEqual(documented.sort());
  });
});
