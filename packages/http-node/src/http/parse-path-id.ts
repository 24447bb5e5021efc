import { ValidationError } from '@plant-store/core';

/** Longest id segment accepted, decoded; longer ones cannot name anything (ids are short) and are a 400. */
const MAX_ID_LENGTH = 256;

/**
 * The id in a path segment such as `/webhooks/endpoints/{id}`, percent-decoded.
 * Malformed percent-encoding, an empty or overlong id, or one holding a
 * control character is a `ValidationError` naming `id`; any other string is
 * handed to the core, which answers 404 for ids it does not know.
 */
export function parsePathId(segment: string): string {
  let id = segment;
  if (id.indexOf('%') !== -1) {
    try {
      id = decodeURIComponent(id);
    } catch {
      throw ValidationError.of('id', 'id is not valid percent-encoded UTF-8');
    }
  }
  // eslint-disable-next-line no-control-regex
  if (id === '' || id.length > MAX_ID_LENGTH || /[\u0000-\u001f\u007f]/.test(id)) {
    throw ValidationError.of('id', `id must be 1 to ${MAX_ID_LENGTH} printable characters`);
  }
  return id;
}
