const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An id as callers may give it: a `bigint`, or a `number` that is a safe integer. */
export type PlantIdInput = bigint | number;

/**
 * The exact int64 an input id stands for. A `number` must be a safe integer:
 * beyond 2^53 it may already have been rounded, so the client refuses it
 * instead of sending a neighbouring id. Throws `RangeError` (`TypeError` for
 * other types) before anything is sent.
 */
export function plantId(id: PlantIdInput, name = 'id'): bigint {
  if (typeof id === 'number') {
    if (!Number.isSafeInteger(id)) throw new RangeError(`${name} must be a safe integer or a bigint (got ${id})`);
    return BigInt(id);
  }
  if (typeof id !== 'bigint') throw new TypeError(`${name} must be a bigint or a number (got ${typeof id})`);
  if (id < INT64_MIN || id > INT64_MAX) throw new RangeError(`${name} must be within int64 (got ${id})`);
  return id;
}

/** An id read from a response (a number, or a bigint beyond 2^53), as `bigint`; undefined when it is not an integer. */
export function idFromJson(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return undefined;
}
