import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, openSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A file or folder made read-only for everyone, root included, until `restore()`. */
export interface ReadOnlyPath {
  /** Makes it writable again (idempotent); call it before removing the folder it is in. */
  restore(): void;
}

/**
 * Makes `path` (a file, or a folder: no new files in it) read-only in a way
 * that holds for the current user. `chmod` stops other users only: root,
 * which the tests often run as, writes through it, so root gets the
 * immutable attribute (`chattr +i`) instead. Returns the reason as a string
 * when neither works here (the caller skips with it); the result is checked
 * by really trying to write.
 */
export function makeReadOnly(path: string): ReadOnlyPath | string {
  const folder = statSync(path).isDirectory();
  const root = process.getuid?.() === 0;
  let restore: () => void;
  try {
    if (root) {
      execFileSync('chattr', ['+i', path], { stdio: 'pipe' });
      restore = () => execFileSync('chattr', ['-i', path], { stdio: 'pipe' });
    } else {
      const mode = statSync(path).mode & 0o777;
      chmodSync(path, folder ? 0o555 : 0o444);
      restore = () => chmodSync(path, mode);
    }
  } catch (error) {
    const how = root ? 'chattr +i (needed as root, where chmod does not stop writes)' : 'chmod';
    return `cannot make a file read-only here: ${how} failed: ${String(error).split('\n')[0]}`;
  }
  let restored = false;
  const handle = {
    restore() {
      if (restored) return;
      restored = true;
      restore();
    },
  };
  if (canWrite(path, folder)) {
    handle.restore();
    return `cannot make a file read-only here: ${root ? 'chattr +i' : 'chmod'} did not stop writes on this file system`;
  }
  return handle;
}

function canWrite(path: string, folder: boolean): boolean {
  const probe = folder ? join(path, '.write-probe') : path;
  try {
    closeSync(openSync(probe, folder ? 'wx' : 'r+'));
    if (folder) rmSync(probe);
    return true;
  } catch {
    return false;
  }
}
