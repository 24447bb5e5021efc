import { INT32_MAX, MAX_TAG_FILTERS, PLANT_NAME_MAX_LENGTH, PLANT_TAG_MAX_LENGTH } from '@plant-store/core';
import { DEFAULT_MAX_BODY_BYTES } from '../http/read-body.js';
import { authErrors, errorResponse, json, ref, requestIdHeader } from './openapi-helpers.js';
import { webhookEvents } from './webhook-events.js';
import { webhookPaths } from './webhook-paths.js';
import { webhookSchemas } from './webhook-schemas.js';

/** An OpenAPI 3.1 document (only the top level is typed; the rest is plain JSON). */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: { readonly title: string; readonly version: string; readonly [key: string]: unknown };
  readonly paths: Record<string, Record<string, unknown>>;
  readonly webhooks: Record<string, Record<string, unknown>>;
  readonly components: Record<string, Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** A plant object (request or response); they differ only in what the tag's description says. */
const plantSchema = (tagDescription: string) => ({
  type: 'object',
  required: ['id', 'name'],
  additionalProperties: false,
  properties: {
    id: ref('schemas', 'PlantId'),
    name: ref('schemas', 'Name'),
    tag: { ...ref('schemas', 'Tag'), description: tagDescription },
  },
});

/** A name or tag: JSON Schema's lengths count code points, as the core does. */
const textSchema = (maxLength: number) => ({
  type: 'string',
  minLength: 1,
  maxLength,
  description: `1 to ${maxLength} characters (code points).`,
});

/** `GET /docs`, listed only when the listener serves the page. */
const docsPath = {
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
};

/**
 * The OpenAPI 3.1 description of the service as it behaves, webhook
 * included. Kept in step with the routes by the end-to-end suite, which
 * checks every status it observes against this document.
 *
 * Ids are int64 JSON numbers (`type: integer, format: int64`), exact to the
 * last digit; clients in languages whose JSON numbers are doubles need a
 * lossless parser. No `minimum`/`maximum` is given for them because the
 * bounds themselves are not representable as doubles.
 */
export interface OpenApiDocumentOptions {
  /** Where the API is mounted; the document's `servers` and link examples carry it. @default '' (the root) */
  readonly basePath?: string;
  /** List `GET /docs`, the API reference page (when the listener serves it). @default false */
  readonly docs?: boolean;
  /** Whether the service has `GET /metrics` (the listener's `metrics` option). @default false */
  readonly metrics?: boolean;
}

/** `GET /metrics`, listed only when metrics are on. */
const metricsPath = {
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
};

export function openapiDocument(version: string, options: OpenApiDocumentOptions = {}): OpenApiDocument {
  const basePath = options.basePath ?? '';
  return {
    openapi: '3.1.0',
    info: {
      title: 'Plant Store',
      version,
      summary: 'Store plants per tenant and get a signed webhook for every new one.',
      description: [
        'Every request and response body is JSON. Every response carries `x-request-id` (the client\'s, when it sent a',
        'sane one: 1 to 128 printable ASCII characters; generated otherwise). Every error has the shape',
        '`{"error": <status>, "message": <text naming the offending field or parameter>}`.',
        '',
        'Beyond the responses listed per operation: an unknown path is a 404; a known path with another method is a',
        '405 with `Allow`; HEAD is accepted wherever GET is (same headers, no body); a malformed HTTP request is a 400,',
        'request headers not received within the headers timeout (default 10 s) or a request not received within the',
        'request timeout (default 30 s) a 408, oversized request headers a 431, each closing the connection.',
        '',
        'Authentication comes first: a request to an authenticated operation without valid credentials gets the 401,',
        'whatever its body or parameters; one without the required scope gets the 403.',
      ].join('\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: basePath === '' ? '/' : basePath, description: 'This service (relative to the URL the document was fetched from).' }],
    tags: [
      { name: 'plants', description: 'The plants of the caller\'s tenant.' },
      { name: 'webhooks', description: 'The caller\'s own webhook endpoints and the deliveries to them.' },
      { name: 'system', description: 'Probes, the API description and metrics; no authentication.' },
    ],
    security: [{ bearerAuth: [] }],
    paths: {
      '/plants': {
        get: {
          operationId: 'listPlants',
          tags: ['plants'],
          summary: 'List plants',
          description: [
            'The caller\'s plants in ascending id order. Without `limit`, all of them, streamed (chunked transfer',
            'encoding). With `limit`, one page; when more plants remain (and only then) the response has a',
            '`Link: </plants?limit=N&after=LAST…>; rel="next"` header. The body is always a plain array.',
            'Unknown query parameters are ignored. Requires the `plants:read` scope.',
          ].join(' '),
          security: [{ bearerAuth: ['plants:read'] }],
          parameters: [
            {
              name: 'limit',
              in: 'query',
              required: false,
              description: 'Maximum number of plants to return (digits only). Absent: all plants.',
              schema: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX },
            },
            {
              name: 'after',
              in: 'query',
              required: false,
              description: 'Keyset cursor: only plants with an id greater than this (a decimal int64).',
              schema: { type: 'integer', format: 'int64' },
            },
            {
              name: 'tag',
              in: 'query',
              required: false,
              description: `Only plants with exactly this tag; repeat it for any of several tags (at most ${MAX_TAG_FILTERS}).`,
              style: 'form',
              explode: true,
              schema: {
                type: 'array',
                maxItems: MAX_TAG_FILTERS,
                items: ref('schemas', 'Tag'),
              },
            },
          ],
          responses: {
            '200': {
              description: 'The plants, ordered by id ascending.',
              headers: {
                ...requestIdHeader,
                link: {
                  description: 'RFC 8288 link to the next page, present only when `limit` was given and more plants remain.',
                  schema: { type: 'string', examples: [`<${basePath}/plants?limit=10&after=42>; rel="next"`] },
                },
              },
              content: json({ type: 'array', items: ref('schemas', 'Plant') }),
            },
            '400': ref('responses', 'BadRequest'),
            ...authErrors,
          },
        },
        post: {
          operationId: 'addPlant',
          tags: ['plants'],
          summary: 'Create a plant',
          description: [
            'Creates a plant in the caller\'s tenant and durably queues its "New Plant" webhooks in the same',
            'transaction. Retry-safe: repeating a create with the same id, name and tag returns 200 with the stored',
            'plant and no second webhook; the same id with another name or tag is a 409. Any property other than',
            '`id`, `name` and `tag` is a 400 naming it. Requires the `plants:write` scope.',
          ].join(' '),
          security: [{ bearerAuth: ['plants:write'] }],
          requestBody: {
            required: true,
            description: `The new plant, as JSON (\`content-type: application/json\`), at most ${DEFAULT_MAX_BODY_BYTES} bytes by default.`,
            content: json(ref('schemas', 'NewPlant')),
          },
          responses: {
            '200': {
              description: 'The stored plant (newly created or, for a repeated create, the existing one).',
              headers: requestIdHeader,
              content: json(ref('schemas', 'Plant')),
            },
            '400': ref('responses', 'BadRequest'),
            ...authErrors,
            '409': errorResponse('A plant with this id exists in the tenant with another name or tag.'),
            '413': errorResponse('The body is larger than the limit (64 KiB by default). The connection is closed.', {
              connection: { description: 'Always `close`.', schema: { type: 'string', const: 'close' } },
            }),
            '415': errorResponse('The content type is missing or not `application/json`.'),
          },
        },
      },
      '/plants/{id}': {
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            description: 'Plant id: a decimal int64 (`-?[0-9]+`).',
            schema: { type: 'integer', format: 'int64' },
          },
        ],
        get: {
          operationId: 'getPlant',
          tags: ['plants'],
          summary: 'Get a plant',
          description: 'Requires the `plants:read` scope.',
          security: [{ bearerAuth: ['plants:read'] }],
          responses: {
            '200': {
              description: 'The plant.',
              headers: requestIdHeader,
              content: json(ref('schemas', 'Plant')),
            },
            '400': ref('responses', 'BadId'),
            ...authErrors,
            '404': ref('responses', 'NotFound'),
          },
        },
        delete: {
          operationId: 'deletePlant',
          tags: ['plants'],
          summary: 'Delete a plant',
          description: 'Webhooks already queued for the plant are still delivered; `plant.deleted` is queued for the tenant\'s endpoints that subscribe to it, in the same transaction. Requires the `plants:write` scope.',
          security: [{ bearerAuth: ['plants:write'] }],
          responses: {
            '204': { description: 'Deleted; no body.', headers: requestIdHeader },
            '400': ref('responses', 'BadId'),
            ...authErrors,
            '404': ref('responses', 'NotFound'),
          },
        },
      },
      '/openapi.json': {
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
      },
      ...webhookPaths(basePath),
      ...(options.docs === true ? { '/docs': docsPath } : {}),
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
      ...(options.metrics === true ? { '/metrics': structuredClone(metricsPath) } : {}),
    },
    webhooks: webhookEvents(),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An opaque token configured by the operator; it determines the tenant and the scopes (`plants:read`, `plants:write`, `webhooks:read`, `webhooks:write`). The scheme name is case-insensitive.',
        },
      },
      schemas: {
        PlantId: {
          type: 'integer',
          format: 'int64',
          description:
            'Client-supplied id, unique per tenant, anywhere in the signed 64-bit range and exact to the last digit. Any JSON spelling of an integer is accepted (`20`, `20.0`, `2e1`; `-0` is 0); strings and non-integers are not.',
          examples: [42],
        },
        Name: textSchema(PLANT_NAME_MAX_LENGTH),
        Tag: textSchema(PLANT_TAG_MAX_LENGTH),
        NewPlant: plantSchema('Optional; omit it rather than sending null (null is a 400).'),
        Plant: plantSchema('Omitted when the plant has none (never null).'),
        Error: {
          type: 'object',
          required: ['error', 'message'],
          additionalProperties: false,
          properties: {
            error: { type: 'integer', format: 'int32', description: 'The HTTP status.' },
            message: { type: 'string', description: 'For humans; names the offending field or parameter.' },
          },
        },
        ...webhookSchemas(),
        Status: {
          type: 'object',
          required: ['status'],
          additionalProperties: false,
          properties: { status: { type: 'string', const: 'ok' } },
        },
      },
      headers: {
        RequestId: {
          description: 'The client\'s `x-request-id` when it sent a sane one (1 to 128 printable ASCII characters), otherwise a generated UUID.',
          required: true,
          schema: { type: 'string', minLength: 1, maxLength: 128 },
        },
        WwwAuthenticate: {
          description: 'RFC 6750 bearer challenge.',
          required: true,
          schema: { type: 'string' },
        },
        Allow: {
          description: 'The methods the path supports.',
          required: true,
          schema: { type: 'string', examples: ['GET, HEAD, POST'] },
        },
      },
      responses: {
        BadRequest: errorResponse(
          'Invalid input: malformed JSON, invalid UTF-8, a body that breaks a rule, or a bad query parameter. The message names the field or parameter.',
        ),
        BadId: errorResponse('The id is not a decimal int64.'),
        Unauthorized: errorResponse(
          'Missing, malformed or unknown credentials. `WWW-Authenticate: Bearer realm="plant-store"` when the header is missing or malformed; `…, error="invalid_token"` for an unknown token.',
          { 'www-authenticate': ref('headers', 'WwwAuthenticate') },
        ),
        Forbidden: errorResponse(
          'The token lacks the scope. `WWW-Authenticate: Bearer realm="plant-store", error="insufficient_scope", scope="<scope>"`.',
          { 'www-authenticate': ref('headers', 'WwwAuthenticate') },
        ),
        NotFound: errorResponse('The caller\'s tenant has no plant with this id.'),
        MethodNotAllowed: errorResponse('The path exists but not with this method.', { allow: ref('headers', 'Allow') }),
        InternalError: errorResponse('An unexpected server failure (logged with the request id; no details are returned).'),
        StorageUnavailable: errorResponse(
          'Storage, or the service that checks tokens (a JWKS endpoint), is unavailable; retry later (`Retry-After` when known).',
        ),
      },
    },
  };
}
