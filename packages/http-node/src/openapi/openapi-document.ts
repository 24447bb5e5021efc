import { components } from './components.js';
import { ref } from './openapi-helpers.js';
import { plantPaths } from './plant-paths.js';
import { docsPath, metricsPath, openapiJsonPath, probePaths } from './system-paths.js';
import { webhookEvents } from './webhook-events.js';
import { webhookPaths } from './webhook-paths.js';

/** An OpenAPI 3.1 document (only the top level is typed; the rest is plain JSON). */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: { readonly title: string; readonly version: string; readonly [key: string]: unknown };
  readonly paths: Record<string, Record<string, unknown>>;
  readonly webhooks: Record<string, Record<string, unknown>>;
  readonly components: Record<string, Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** What the document describes beyond the plant API. */
export interface OpenApiDocumentOptions {
  /** Where the API is mounted; the document's `servers` and link examples carry it. @default '' (the root) */
  readonly basePath?: string;
  /** List `GET /docs`, the API reference page (when the listener serves it). @default false */
  readonly docs?: boolean;
  /** Whether the service has `GET /metrics` (the listener's `metrics` option). @default false */
  readonly metrics?: boolean;
}

const info = (version: string) => ({
  title: 'Plant Store',
  version,
  summary: 'Store plants per tenant and get a signed webhook for every new one.',
  description: [
    "Every request and response body is JSON. Every response carries `x-request-id` (the client's, when it sent a",
    'sane one: 1 to 128 printable ASCII characters; generated otherwise). Every error has the shape',
    '`{"error": <status>, "message": <text naming the offending field or parameter>}`.',
    '',
    'Beyond the operations listed: an unknown path is a 404, and a known path with another method a 405 with `Allow`',
    '(both in the error shape); HEAD is accepted wherever GET is (same headers, no body). Any request may be refused',
    'before it reaches its operation (`4XX`): malformed (400), too slow (408: headers within 10 s, the whole request',
    'within 30 s by default) or with oversized headers (431).',
    '',
    'Authentication comes first: a request to an authenticated operation without valid credentials gets the 401,',
    'whatever its body or parameters; one without the required scope gets the 403.',
  ].join('\n'),
  license: { name: 'MIT', identifier: 'MIT' },
});

const tags = () => [
  { name: 'plants', description: "The plants of the caller's tenant." },
  { name: 'webhooks', description: "The caller's own webhook endpoints and the deliveries to them." },
  { name: 'system', description: 'Probes, the API description and metrics; no authentication.' },
];

function paths(basePath: string, options: OpenApiDocumentOptions): Record<string, Record<string, unknown>> {
  return {
    ...plantPaths(basePath),
    '/openapi.json': openapiJsonPath(),
    ...webhookPaths(basePath),
    ...(options.docs === true ? { '/docs': docsPath() } : {}),
    ...probePaths(),
    ...(options.metrics === true ? { '/metrics': metricsPath() } : {}),
  };
}

/** Adds the `4XX` that the HTTP parser can answer any request with to every operation. */
function withRequestRefused(paths: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  for (const item of Object.values(paths)) {
    for (const [key, operation] of Object.entries(item)) {
      if (key !== 'parameters') (operation as { responses: Record<string, unknown> }).responses['4XX'] = ref('responses', 'RequestRefused');
    }
  }
  return paths;
}

/**
 * The OpenAPI 3.1 description of the service, kept in step with the routes by the end-to-end suite. Ids are int64 JSON
 * numbers without `minimum`/`maximum`: the bounds themselves are not representable as doubles.
 */
export function openapiDocument(version: string, options: OpenApiDocumentOptions = {}): OpenApiDocument {
  const basePath = options.basePath ?? '';
  return {
    openapi: '3.1.0',
    info: info(version),
    servers: [{ url: basePath === '' ? '/' : basePath, description: 'This service (relative to the URL the document was fetched from).' }],
    tags: tags(),
    security: [{ bearerAuth: [] }],
    paths: withRequestRefused(paths(basePath, options)),
    webhooks: webhookEvents(),
    components: components(),
  };
}
