import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root: the working directory `pnpm start` and the tests use by default. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../packages/server/src/cli.ts', import.meta.url));
/** The bundled CLI `pnpm build` writes: what the `plant-store` bin, `pnpm start` and the docs run. */
export const BUILT_CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));
// An absolute loader URL, so the CLI can run from any working directory (a bare `tsx` resolves from the cwd).
export const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** `plant-store listening on http://127.0.0.1:PORT (storage: …)` */
export const READY_LINE = /^plant-store listening on (http:\/\/\S+) \(storage: (.+)\)$/m;

export interface CliExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  /** The whole environment of the child (only PATH is added): nothing leaks in from the test runner. */
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  /** `source` (default): the TypeScript sources through tsx, never stale; `build`: the bundled CLI (needs `pnpm build`). */
  readonly from?: 'source' | 'build';
}

/** A spawned `plant-store`, with its output collected. */
export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Lines of stdout that are JSON objects (the logs). */
  logs(): Record<string, unknown>[];
  /** Resolves with everything once the process has exited. */
  readonly exited: Promise<CliExit>;
  /** Resolves once `pattern` appears on stdout; rejects if the process exits or `timeoutMs` passes first. */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit, rejecting (and killing the process) if it takes longer than `timeoutMs`. */
  waitForExit(timeoutMs?: number): Promise<CliExit>;
  /** Sends a signal (unless it has exited) and waits for the exit, like `waitForExit`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<CliExit>;
}

/** Spawns `node --conditions=source --import tsx packages/server/src/cli.ts …args` (or `node packages/server/dist/cli.js …args`). */
export function spawnCli(args: readonly string[], options: CliOptions = {}): CliProcess {
  const program = options.from === 'build' ? [BUILT_CLI] : ['--conditions=source', '--import', TSX, CLI];
  const child = spawn(process.execPath, [...program, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<CliExit>((resolve) => {
    child.on('close', (code, signal) => {
      resolve({ code, signal, stdout, stderr });
      for (const listener of listeners) listener();
    });
  });
  let exitCode: number | null | undefined;
  void exited.then((exit) => (exitCode = exit.code ?? -1));

  const describe = () => `\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;

  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    // Complete lines only: the service writes many lines at once, and a pipe may hand them over in pieces.
    logs: () =>
      stdout
        .slice(0, stdout.lastIndexOf('\n') + 1)
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    exited,
    waitForStdout(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (match) return done(() => resolve(match));
          if (exitCode !== undefined) return done(() => reject(new Error(`exited (${exitCode}) before ${pattern}${describe()}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`timed out waiting for ${pattern}${describe()}`))), timeoutMs);
        const done = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    async waitForExit(timeoutMs = 10_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`did not exit within ${timeoutMs} ms${describe()}`));
        }, timeoutMs);
      });
      try {
        return await Promise.race([exited, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    stop(signal = 'SIGTERM', timeoutMs = 10_000) {
      if (exitCode === undefined) child.kill(signal);
      return this.waitForExit(timeoutMs);
    },
  };
}

/** A running `plant-store serve`, ready. */
export interface ServeProcess extends CliProcess {
  readonly url: string;
  readonly storage: string;
}

/** Spawns `plant-store serve …args` and waits for its ready line. */
export async function startServe(args: readonly string[], options: CliOptions = {}): Promise<ServeProcess> {
  const cli = spawnCli(['serve', ...args], options);
  try {
    const ready = await cli.waitForStdout(READY_LINE);
    return { ...cli, url: ready[1]!, storage: ready[2]! };
  } catch (error) {
    cli.child.kill('SIGKILL');
    throw error;
  }
}

/** Runs the CLI to completion (killing it after `timeoutMs`). */
export async function runCli(args: readonly string[], options: CliOptions = {}, timeoutMs = 15_000): Promise<CliExit> {
  const cli = spawnCli(args, options);
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), timeoutMs);
  try {
    return await cli.exited;
  } finally {
    clearTimeout(timer);
  }
}
