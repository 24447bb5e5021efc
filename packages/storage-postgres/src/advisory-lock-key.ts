import { createHash } from 'node:crypto';

/** The 64-bit PostgreSQL advisory lock key of `name` (the first 8 bytes of its SHA-256): one key per thing to take turns at. */
export function advisoryLockKey(name: string): bigint {
  return createHash('sha256').update(name).digest().readBigInt64BE(0);
}
