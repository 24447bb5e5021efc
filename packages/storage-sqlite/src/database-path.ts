/**
 * Whether `path` names a database file by a plain path: not an in-memory
 * database (`':memory:'` or `''`) nor a `file:` URI. Only such a file has a
 * folder to create, an identity to guard, a log to checkpoint from another
 * connection, and a path worth naming in errors.
 */
export function isPlainFilePath(path: string): boolean {
  return path !== '' && path !== ':memory:' && !path.startsWith('file:');
}
