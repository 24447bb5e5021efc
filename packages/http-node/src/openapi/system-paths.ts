import { json, ref, requestIdHeader } from './openapi-helpers.js';

// Each builder returns a fresh object.

const systemGet = (operationId: string, summary: string, responses: object, description?: string) => ({
  get: { operationId, tags: ['system'], summary, ...(description === undefined ? {} : { description }), security: [], responses },
});

const ok = (description: string, content: object, headers: object = requestIdHeader) => ({ description, headers, content });

export const openapiJsonPath = () =>
  systemGet('getOpenApiDocument', 'This document', { '200': ok('The OpenAPI 3.1 document of the service.', json({ type: 'object' })) });

export const docsPath = () =>
  systemGet(
    'getDocsPage',
    'API reference page',
    {
      '200': ok(
        'The page.',
        { 'text/html': { schema: { type: 'string' } } },
        { ...requestIdHeader, etag: { description: 'Validator for `If-None-Match`.', schema: { type: 'string' } } },
      ),
      '304': { description: 'Not modified: `If-None-Match` holds the current ETag.', headers: requestIdHeader },
    },
    [
      'An HTML page rendering this document (swagger-ui), with a "try it" that takes a bearer token through its',
      '"Authorize" dialog. Its scripts, styles and icons are served by the service below `/docs/`; it loads nothing',
      'from elsewhere.',
    ].join(' '),
  );

export const probePaths = () => ({
  '/healthz': systemGet('getHealth', 'Liveness probe', { '200': ok('The process serves requests.', json(ref('schemas', 'Status'))) }),
  '/readyz': systemGet('getReadiness', 'Readiness probe', {
    '200': ok('Storage answers queries.', json(ref('schemas', 'Status'))),
    '503': ref('responses', 'StorageUnavailable'),
  }),
});

export const metricsPath = () =>
  systemGet(
    'getMetrics',
    'Prometheus metrics',
    { '200': ok('The metrics.', { 'text/plain; version=0.0.4': { schema: { type: 'string' } } }) },
    [
      'Prometheus text format 0.0.4: requests by method, route template and status, request durations, webhook',
      'attempts by outcome, pending webhook deliveries and the age of the oldest (read from storage at each scrape),',
      'process metrics. No label holds a tenant, token, id or URL.',
    ].join(' '),
  );
