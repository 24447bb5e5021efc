import { createHash } from 'node:crypto';

/** Lower-case hex SHA-256 of a token: the only form in which tokens are compared or kept. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
