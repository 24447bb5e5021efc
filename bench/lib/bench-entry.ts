import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type NodeLine, rerunOnLine } from './node-line.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The start every bench command shares: from the repository's root, its options parsed (a bad one exits 2 with one
 * line), and the whole run moved to the chosen Node line when started on another (`pnpm bench` runs on the developer's
 * node). Returns the options, when it started, and a log that says how long it has run.
 */
export function startBenchCommand<T extends { readonly node: NodeLine }>(
  parse: (args: readonly string[]) => T,
  label: string,
): { options: T; startedAt: Date; log: (message: string) => void } {
  process.chdir(repoRoot);
  let options: T;
  try {
    options = parse(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
  const rerun = rerunOnLine(repoRoot, options.node, process.argv.slice(1));
  if (rerun !== undefined) process.exit(rerun);
  const startedAt = new Date();
  const started = performance.now();
  const log = (message: string) => process.stderr.write(`[${label} ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
  return { options, startedAt, log };
}
