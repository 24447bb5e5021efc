/** JSON in which an object names a key twice: it has no single meaning, so it is refused like malformed text (a `SyntaxError`); `key` is the key, decoded. */
export class JsonDuplicateKeyError extends SyntaxError {
  readonly key: string;
  constructor(key: string) {
    // Quoted in part: the key is the client's text, possibly huge.
    const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
    super(`duplicate key ${JSON.stringify(shown)}`);
    this.name = 'JsonDuplicateKeyError';
    this.key = key;
  }
}
