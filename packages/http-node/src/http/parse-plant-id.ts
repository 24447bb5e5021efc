import { ValidationError } from '@plant-store/core';
import { INT64_MAX, INT64_MIN, int64FromInteger } from '@plant-store/core/adapter';

const ID_MESSAGE = `id must be an integer between ${INT64_MIN} and ${INT64_MAX}`;

/**
 * The plant id of a `/plants/{id}` path segment: a plain decimal integer
 * (`-?\d+`) in int64, percent-encoding allowed. Anything else is a
 * `ValidationError` naming `id`.
 */
export function parsePlantId(segment: string): bigint {
  let text = segment;
  if (text.indexOf('%') !== -1) {
    try {
      text = decodeURIComponent(text);
    } catch {
      throw ValidationError.of('id', ID_MESSAGE);
    }
  }
  const id = int64FromInteger(text);
  if (id === undefined) throw ValidationError.of('id', ID_MESSAGE);
  return id;
}
