/** Whether `path` names a database file by a plain path: not in memory (`':memory:'`, `''`) nor a `file:` URI. */
export function isPlainFilePath(path: string): boolean {
  return path !== '' && path !== ':memory:' && !path.startsWith('file:');
}
