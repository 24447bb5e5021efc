import { randomUUID } from 'node:crypto';

// Echoed only when short printable ASCII, so it cannot bloat logs or smuggle control characters into them.
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

export function requestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}
