import { hash } from 'node:crypto';

/**
 * Lower-case hex SHA-256 of a token: the only form in which tokens are
 * compared or kept. The one-shot `hash` is a third of the cost of a
 * `createHash` object, and this runs for every request.
 */
export function tokenDigest(token: string): string {
  return hash('sha256', token, 'hex');
}
