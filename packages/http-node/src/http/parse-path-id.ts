import { ValidationError } from '@plant-store/core';
import { INT64_MAX, INT64_MIN, int64FromInteger } from '@plant-store/core/adapter';

// Longer ids cannot name anything (ids are short).
const MAX_ID_LENGTH = 256;

const PLANT_ID_MESSAGE = `id must be an integer between ${INT64_MIN} and ${INT64_MAX}`;

/** The percent-decoded id of a path segment; any sane string goes to the core, which answers 404 for ids it does not know. */
export function parsePathId(segment: string): string {
  const id = percentDecoded(segment, 'id is not valid percent-encoded UTF-8');
  if (id === '' || id.length > MAX_ID_LENGTH || /[\u0000-\u001f\u007f]/.test(id)) {
    throw ValidationError.of('id', `id must be 1 to ${MAX_ID_LENGTH} printable characters`);
  }
  return id;
}

export function parsePlantId(segment: string): bigint {
  const id = int64FromInteger(percentDecoded(segment, PLANT_ID_MESSAGE));
  if (id === undefined) throw ValidationError.of('id', PLANT_ID_MESSAGE);
  return id;
}

function percentDecoded(segment: string, message: string): string {
  if (segment.indexOf('%') === -1) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw ValidationError.of('id', message);
  }
}
