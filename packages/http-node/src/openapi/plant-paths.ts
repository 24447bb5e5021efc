import { INT32_MAX, MAX_TAG_FILTERS, PLANT_CONTENT_IN_WORDS, PLANT_FIELD_NAMES, wordList } from '@plant-store/core/adapter';
import { DEFAULT_MAX_BODY_BYTES } from '../http/read-body.js';
import { authErrors, bodyErrors, errorResponse, json, ref, requestIdHeader } from './openapi-helpers.js';

// The paths of the plants API, built fresh for every document.

/** The query parameters of `GET /plants`. */
const listParameters = () => [
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
];

/** `GET /plants`; `basePath` goes into the `Link` example. */
const listPlants = (basePath: string) => ({
  operationId: 'listPlants',
  tags: ['plants'],
  summary: 'List plants',
  description: [
    "The caller's plants in ascending id order. Without `limit`, all of them. With `limit`, one page; when more plants",
    'remain (and only then) the response has a `Link: </plants?limit=N&after=LAST…>; rel="next"` header. The body is',
    'always a plain array: streamed (chunked transfer encoding) when longer than one storage batch, with a `content-length`',
    'when shorter.',
    'Unknown query parameters are ignored. Requires the `plants:read` scope.',
  ].join(' '),
  security: [{ bearerAuth: ['plants:read'] }],
  parameters: listParameters(),
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
});

/** `POST /plants`. */
const addPlant = () => ({
  operationId: 'addPlant',
  tags: ['plants'],
  summary: 'Create a plant',
  description: [
    'Creates a plant in the caller\'s tenant and durably queues its "New Plant" webhooks in the same',
    `transaction. Retry-safe: repeating a create with the same ${wordList(PLANT_FIELD_NAMES, 'and')} returns 200 with the stored`,
    `plant and no second webhook; the same id with another ${PLANT_CONTENT_IN_WORDS} is a 409. Any property other than`,
    `${wordList(
      PLANT_FIELD_NAMES.map((name) => `\`${name}\``),
      'and',
    )} is a 400 naming it. Requires the \`plants:write\` scope.`,
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
    '409': errorResponse(`A plant with this id exists in the tenant with another ${PLANT_CONTENT_IN_WORDS}.`),
    ...bodyErrors,
  },
});

/** `GET /plants/{id}`. */
const getPlant = () => ({
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
});

/** `DELETE /plants/{id}`. */
const deletePlant = () => ({
  operationId: 'deletePlant',
  tags: ['plants'],
  summary: 'Delete a plant',
  description:
    "Webhooks already queued for the plant are still delivered; `plant.deleted` is queued for the tenant's endpoints that subscribe to it, in the same transaction. Requires the `plants:write` scope.",
  security: [{ bearerAuth: ['plants:write'] }],
  responses: {
    '204': { description: 'Deleted; no body.', headers: requestIdHeader },
    '400': ref('responses', 'BadId'),
    ...authErrors,
    '404': ref('responses', 'NotFound'),
  },
});

/** `/plants/{id}` and its operations. */
const plantItem = () => ({
  parameters: [
    {
      name: 'id',
      in: 'path',
      required: true,
      description: 'Plant id: a decimal int64 (`-?[0-9]+`).',
      schema: { type: 'integer', format: 'int64' },
    },
  ],
  get: getPlant(),
  delete: deletePlant(),
});

/** Every path of the plants API; `basePath` goes into the `Link` example. */
export function plantPaths(basePath: string): Record<string, Record<string, unknown>> {
  return {
    '/plants': { get: listPlants(basePath), post: addPlant() },
    '/plants/{id}': plantItem(),
  };
}
