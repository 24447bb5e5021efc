export const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

export const json = (schema: unknown) => ({ 'application/json': { schema } });

export const requestIdHeader = { 'x-request-id': ref('headers', 'RequestId') };

/** A response in the error shape, with `x-request-id` and any extra headers. */
export const errorResponse = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { ...requestIdHeader, ...headers },
  content: json(ref('schemas', 'Error')),
});

/** The error responses every authenticated operation can give. */
export const authErrors = {
  '401': ref('responses', 'Unauthorized'),
  '403': ref('responses', 'Forbidden'),
  '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'StorageUnavailable'),
};

/** The errors of reading a JSON request body. */
export const bodyErrors = {
  '413': errorResponse('The body is larger than the limit (64 KiB by default). The connection is closed.', {
    connection: { description: 'Always `close`.', schema: { type: 'string', const: 'close' } },
  }),
  '415': errorResponse('The content type is missing or not `application/json`.'),
};

export const jsonResponse = (description: string, schema: unknown, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { ...requestIdHeader, ...headers },
  content: json(schema),
});
