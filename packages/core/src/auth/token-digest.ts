import { hash } from 'node:crypto';

/** Lower-case hex SHA-256 of a token, the form configured tokens are kept in (the one-shot `hash`: a third of `createHash`'s cost). */
export function tokenDigest(token: string): string {
  return hash('sha256', token, 'hex');
}
