/** Longest part of a duplicated key quoted in the message: the key is the client's text, possibly huge. */
const QUOTED_KEY_MAX = 64;

/** JSON in which an object names a key twice: it has no single meaning, so it is refused like malformed text (a `SyntaxError`); `key` is the key, decoded. */
export class JsonDuplicateKeyError extends SyntaxError {
  readonly key: string;
  constructor(key: string) {
    const shown = key.length > QUOTED_KEY_MAX ? `${key.slice(0, QUOTED_KEY_MAX)}…` : key;
    super(`duplicate key ${JSON.stringify(shown)}`);
    this.name = 'JsonDuplicateKeyError';
    this.key = key;
  }
}
