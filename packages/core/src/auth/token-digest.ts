import { hash } from 'node:crypto';

/**
 * Lower-case hex SHA-256 of a token: the form in which configured tokens
 * are stored and compared. The one-shot `hash` is a third of the cost of a
 * `createHash` object, and this runs for every token not yet remembered.
 */
export function tokenDigest(token: string): string {
  return hash('sha256', token, 'hex');
}
