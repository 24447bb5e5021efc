import { PLANT_FIELDS, type PlantField } from '@plant-store/core/adapter';
import { errorResponse, ref } from './openapi-helpers.js';
import { webhookSchemas } from './webhook-schemas.js';

// The `components` section of the document, built fresh for every document.

const plantFields = Object.entries(PLANT_FIELDS) as [string, PlantField][];

/** The name of a plant field's schema: `Name` for `name`, unless the table names it. */
const plantFieldSchemaName = (name: string, field: PlantField) => field.schemaName ?? name[0]!.toUpperCase() + name.slice(1);

/** A plant field's schema. Text: JSON Schema's lengths count code points, as the core does. */
const fieldSchema = ({ type, maxLength, description }: PlantField) =>
  type === 'int64'
    ? { type: 'integer', format: 'int64', description, examples: [42] }
    : { type: 'string', minLength: 1, maxLength, description: [description, `1 to ${maxLength} characters (code points).`].filter(Boolean).join(' ') };

/** A plant object (request or response); they differ only in what an optional field's description says. */
const plantSchema = (optionalDescription: string) => ({
  type: 'object',
  required: plantFields.filter(([, field]) => !field.optional).map(([name]) => name),
  additionalProperties: false,
  properties: Object.fromEntries(
    plantFields.map(([name, field]) => {
      const schema = ref('schemas', plantFieldSchemaName(name, field));
      return [name, field.optional ? { ...schema, description: optionalDescription } : schema];
    }),
  ),
});

const securitySchemes = () => ({
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An opaque token configured by the operator; it determines the tenant and the scopes (`plants:read`, `plants:write`, `webhooks:read`, `webhooks:write`). The scheme name is case-insensitive.',
  },
});

const schemas = () => ({
  ...Object.fromEntries(plantFields.map(([name, field]) => [plantFieldSchemaName(name, field), fieldSchema(field)])),
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
});

const headers = () => ({
  RequestId: {
    description: "The client's `x-request-id` when it sent a sane one (1 to 128 printable ASCII characters), otherwise a generated UUID.",
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 128 },
  },
  WwwAuthenticate: {
    description: 'RFC 6750 bearer challenge.',
    required: true,
    schema: { type: 'string' },
  },
});

const responses = () => ({
  BadRequest: errorResponse(
    'Invalid input: malformed JSON, invalid UTF-8, a body that breaks a rule, or a bad query parameter. The message names the field or parameter.',
  ),
  BadId: errorResponse('The id is not a decimal int64.'),
  Unauthorized: errorResponse(
    'Missing, malformed or unknown credentials. `WWW-Authenticate: Bearer realm="plant-store"` when the header is missing or malformed; `…, error="invalid_token"` for an unknown token.',
    { 'www-authenticate': ref('headers', 'WwwAuthenticate') },
  ),
  Forbidden: errorResponse('The token lacks the scope. `WWW-Authenticate: Bearer realm="plant-store", error="insufficient_scope", scope="<scope>"`.', {
    'www-authenticate': ref('headers', 'WwwAuthenticate'),
  }),
  NotFound: errorResponse("The caller's tenant has no plant with this id."),
  RequestRefused: errorResponse(
    'Refused before any operation ran, the connection closed: a malformed HTTP request (400), headers or request not received within the timeouts (408), oversized request headers (431).',
    { connection: { description: 'Always `close`.', required: true, schema: { type: 'string', const: 'close' } } },
  ),
  InternalError: errorResponse('An unexpected server failure (logged with the request id; no details are returned).'),
  StorageUnavailable: errorResponse('Storage, or the service that checks tokens (a JWKS endpoint), is unavailable; retry later (`Retry-After` when known).'),
});

/** The `components` section: security schemes, schemas, headers and shared responses. */
export function components(): Record<string, Record<string, unknown>> {
  return { securitySchemes: securitySchemes(), schemas: schemas(), headers: headers(), responses: responses() };
}
