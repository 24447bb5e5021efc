import { json, ref, requestIdHeader } from './openapi-helpers.js';

// The unauthenticated paths of the service: this document, the reference
// page, the probes and the metrics. Each builder returns a fresh object.

/** `GET /openapi.json`. */
export const openapiJsonPath = () => ({
  get: {
    operationId: 'getOpenApiDocument',
    tags: ['system'],
    summary: 'This document',
    security: [],
    responses: {
      '200': {
        description: 'The OpenAPI 3.1 document of the service.',
        headers: requestIdHeader,
        content: json({ type: 'object' }),
      },
    },
  },
});

/** `GET /docs`, listed only when the listener serves the page. */
export const docsPath = () => ({
  get: {
    operationId: 'getDocsPage',
    tags: ['system'],
    summary: 'API reference page',
    description: [
      'An HTML page rendering this document (swagger-ui), with a "try it" that takes a bearer token through its',
      '"Authorize" dialog. Its scripts, styles and icons are served by the service below `/docs/`; it loads nothing',
      'from elsewhere.',
    ].join(' '),
    security: [],
    responses: {
      '200': {
        description: 'The page.',
        headers: {
          ...requestIdHeader,
          etag: { description: 'Validator for `If-None-Match`.', schema: { type: 'string' } },
        },
        content: { 'text/html': { schema: { type: 'string' } } },
      },
      '304': { description: 'Not modified: `If-None-Match` holds the current ETag.', headers: requestIdHeader },
    },
  },
});

/** `GET /healthz` and `GET /readyz`. */
export const probePaths = () => ({
  '/healthz': {
    get: {
      operationId: 'getHealth',
      tags: ['system'],
      summary: 'Liveness probe',
      security: [],
      responses: {
        '200': { description: 'The process serves requests.', headers: requestIdHeader, content: json(ref('schemas', 'Status')) },
      },
    },
  },
  '/readyz': {
    get: {
      operationId: 'getReadiness',
      tags: ['system'],
      summary: 'Readiness probe',
      security: [],
      responses: {
        '200': { description: 'Storage answers queries.', headers: requestIdHeader, content: json(ref('schemas', 'Status')) },
        '503': ref('responses', 'StorageUnavailable'),
      },
    },
  },
});

/** `GET /metrics`, listed only when metrics are on. */
export const metricsPath = () => ({
  get: {
    operationId: 'getMetrics',
    tags: ['system'],
    summary: 'Prometheus metrics',
    description: [
      'Prometheus text format 0.0.4: requests by method, route template and status, request durations, webhook',
      'attempts by outcome, pending webhook deliveries and the age of the oldest (read from storage at each scrape),',
      'process metrics. No label holds a tenant, token, id or URL.',
    ].join(' '),
    security: [],
    responses: {
      '200': {
        description: 'The metrics.',
        headers: requestIdHeader,
        content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } },
      },
    },
  },
});
