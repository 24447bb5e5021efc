import { randomUUID } from 'node:crypto';

// A client's id is echoed only when it is short printable ASCII, so it cannot
// bloat logs or smuggle control characters into them or into the response.
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The request id to answer with: the client's `x-request-id` when sane, else a fresh UUID. */
export function requestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}
