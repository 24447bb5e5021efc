import { randomFillSync } from 'node:crypto';

// Random bytes are drawn in bulk (as crypto.randomUUID does): one kernel call per 256 ids.
const ID_BYTES = 16;
const pool = Buffer.allocUnsafe(ID_BYTES * 256);
let offset = pool.length;

/** A new webhook message id: `msg_` and the 32 hex digits of a version 4 UUID, written straight from random bytes (one per delivery of every create). */
export function newMessageId(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  // RFC 9562 version 4 and variant bits, as in randomUUID().
  pool[offset + 6] = (pool[offset + 6]! & 0x0f) | 0x40;
  pool[offset + 8] = (pool[offset + 8]! & 0x3f) | 0x80;
  const id = `msg_${pool.toString('hex', offset, offset + ID_BYTES)}`;
  offset += ID_BYTES;
  return id;
}
