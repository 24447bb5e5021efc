import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** A commit checked out, installed and built in a temporary git worktree. */
export interface CommitTree {
  /** The full commit id. */
  readonly commit: string;
  /** The short id, as the report names it. */
  readonly label: string;
  readonly dir: string;
  /** Removes the worktree (and its node_modules). */
  remove(): void;
}

const git = (repoRoot: string, args: readonly string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 2] }).trim();

/**
 * Checks `rev` out into a worktree under `parent`, installs it from its own
 * lockfile and builds it with this process's Node line on PATH (the line's
 * better-sqlite3 is built by the install). Output goes to stderr: stdout
 * may carry the report.
 */
export function prepareCommitTree(repoRoot: string, rev: string, parent: string, log: (message: string) => void): CommitTree {
  const commit = git(repoRoot, ['rev-parse', '--verify', `${rev}^{commit}`]);
  const label = git(repoRoot, ['rev-parse', '--short', commit]);
  const dir = join(parent, label);
  log(`${rev}: worktree of ${label} in ${dir}`);
  git(repoRoot, ['worktree', 'add', '--detach', dir, commit]);
  const remove = () => {
    git(repoRoot, ['worktree', 'remove', '--force', dir]);
  };
  try {
    log(`${label}: install (frozen lockfile) and build`);
    const pnpm = (args: readonly string[]) => execFileSync('npx', ['-y', 'pnpm@10', ...args], { cwd: dir, stdio: ['ignore', 2, 2] });
    pnpm(['install', '--frozen-lockfile']);
    pnpm(['-r', 'build']);
  } catch (error) {
    remove();
    throw error;
  }
  return { commit, label, dir, remove };
}
