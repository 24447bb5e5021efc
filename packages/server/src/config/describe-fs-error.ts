/** A short, human reason for a failed file operation (`no such file`, `permission denied`, …), without stack or internals. */
export function describeFsError(error: unknown): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'part of the path is a file, not a folder';
    case 'EROFS':
      return 'read-only file system';
    default:
      return code ?? (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');
  }
}
