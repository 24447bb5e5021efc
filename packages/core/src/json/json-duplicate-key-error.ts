/** Longest part of a duplicated key quoted in the message: the key is the client's text, possibly huge. */
const QUOTED_KEY_MAX = 64;

/**
 * JSON text in which one object names the same key twice (at any depth).
 * Such text has no single meaning (parsers keep the first, the last, or
 * refuse), so it is refused, like malformed text: hence a `SyntaxError`.
 * `key` is the duplicated key, decoded; the message quotes it (shortened).
 */
export class JsonDuplicateKeyError extends SyntaxError {
  readonly key: string;
  constructor(key: string) {
    const shown = key.length > QUOTED_KEY_MAX ? `${key.slice(0, QUOTED_KEY_MAX)}…` : key;
    super(`duplicate key ${JSON.stringify(shown)}`);
    this.name = 'JsonDuplicateKeyError';
    this.key = key;
  }
}
