import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The Node lines the suite is tested on, which the bench can run on (`--node`). */
export const NODE_LINES = ['20', '24', '26'] as const;
export type NodeLine = (typeof NODE_LINES)[number];

/** The environment that runs `line`, from `scripts/node-line.sh` (the step CI and developers use too). */
export function nodeLineEnv(repoRoot: string, line: NodeLine): Record<string, string> {
  const printed = execFileSync(join(repoRoot, 'scripts/node-line.sh'), [line], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const env: Record<string, string> = {};
  for (const match of printed.matchAll(/^export (\w+)='([^']*)'$/gm)) env[match[1]!] = match[2]!;
  if (env.PATH === undefined) throw new Error(`scripts/node-line.sh ${line} printed no PATH`);
  return env;
}

/**
 * Runs this same bench command again on `line` when this process runs on
 * another one, and returns its exit code; undefined when already on it.
 * The harness moves with the servers, so that every process of a run,
 * and the native addon they load, are of one line.
 */
export function rerunOnLine(repoRoot: string, line: NodeLine, argv: readonly string[]): number | undefined {
  if (process.versions.node.split('.')[0] === line) return undefined;
  const env = { ...process.env, ...nodeLineEnv(repoRoot, line) };
  const node = join(env.npm_config_nodedir!, 'bin/node');
  process.stderr.write(`[bench] running on Node ${line} (${node}), started on ${process.version}\n`);
  const run = spawnSync(node, [...process.execArgv, ...argv], { cwd: repoRoot, env, stdio: 'inherit' });
  return run.status ?? 1;
}

/**
 * Rebuilds the workspace's better-sqlite3 for this process's line when its
 * native addon was built for another (node_modules installed on another
 * line): the service and the SQLite baseline load that one addon. The
 * rebuild stays in node_modules; the line it was installed on gets it back
 * by a rebuild there.
 */
export function ensureSqliteAddon(repoRoot: string, line: NodeLine, betterSqlite3: string, log: (message: string) => void): void {
  const probe = `new (require(${JSON.stringify(betterSqlite3)}))(':memory:').close()`;
  const loads = () => spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
  const first = loads();
  if (first.status === 0) return;
  if (!/NODE_MODULE_VERSION/.test(first.stderr)) throw new Error(`better-sqlite3 does not load on ${process.version}:\n${first.stderr}`);
  log(
    `better-sqlite3 in node_modules was built for another Node line: rebuilding it for ${process.version} (afterwards, \`npx -y pnpm@10 -r rebuild better-sqlite3\` on your usual line gives it back)`,
  );
  // With the line's headers whichever node this is, and its output on stderr: stdout may carry the report (--no-write).
  const env = { ...process.env, ...nodeLineEnv(repoRoot, line) };
  execFileSync('npx', ['-y', 'pnpm@10', '--recursive', 'rebuild', 'better-sqlite3'], { cwd: repoRoot, env, stdio: ['ignore', 2, 2] });
  const second = loads();
  if (second.status !== 0) throw new Error(`better-sqlite3 still does not load on ${process.version} after a rebuild:\n${second.stderr}`);
}
