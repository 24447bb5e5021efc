import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { allowedCpusOf, nodeCommand } from './cpu-pinning.js';
import { readProcStats } from './proc-stats.js';

/** How to start one server: a node command line and its environment. */
export interface ServerSpec {
  /** Short name used in the report, e.g. `service (sqlite)`. */
  readonly label: string;
  /** Arguments for `node` (process.execPath). */
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** The one CPU the process and all its threads run on; any CPU when not given. */
  readonly cpu?: number;
}

export type RunningServer = Awaited<ReturnType<typeof startServer>>;

const READY_URL = /https?:\/\/[\w.-]+:\d+/;

/** Fails the start when the kernel does not hold the server to its CPU: a report must not claim a pinning that did not happen. */
function checkAffinity(spec: ServerSpec, pid: number): void {
  if (spec.cpu === undefined) return;
  const allowed = allowedCpusOf(pid);
  if (allowed.length !== 1 || allowed[0] !== spec.cpu) {
    throw new Error(`${spec.label} (pid ${pid}) runs on CPUs ${allowed.join(',')}, not on CPU ${spec.cpu} alone`);
  }
}

/**
 * Spawns `node <args>` (through `taskset -c` when the spec names a CPU)
 * and waits for the first stdout line holding a URL (the ready line).
 * After that stdout keeps being drained, so a server that logs every
 * request never blocks on a full pipe; the last 8 KiB of stderr, and stdout
 * up to the ready line, explain a failed start.
 */
export async function startServer(spec: ServerSpec, timeoutMs = 20_000) {
  const started = performance.now();
  const { command, args } = nodeCommand(spec.args, spec.cpu);
  const child = spawn(command, args, { cwd: process.cwd(), env: { ...process.env, ...spec.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr = (stderr + text).slice(-8192);
  });
  let head: string | undefined = '';
  const ready = new Promise<{ url: string; readyMs: number }>((resolve, reject) => {
    const fail = (why: string) => reject(new Error(`${spec.label}: ${why}\n${stderr}${head ?? ''}`));
    const timer = setTimeout(() => fail(`no ready line within ${timeoutMs} ms`), timeoutMs);
    // Once ready, this rejects nothing: the exit after a stop is not an error.
    exited.then(
      ([code, signal]) => fail(`exited (${code ?? signal}) before it was ready`),
      (error: Error) => fail(error.message),
    );
    child.stdout.on('data', (chunk: Buffer) => {
      if (head === undefined) return;
      head += chunk.toString('utf8');
      const url = READY_URL.exec(head)?.[0];
      if (url === undefined) return;
      head = undefined;
      clearTimeout(timer);
      resolve({ url, readyMs: performance.now() - started });
    });
  });
  const pid = child.pid!;
  let url: string;
  let readyMs: number;
  try {
    ({ url, readyMs } = await ready);
    checkAffinity(spec, pid);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  let stopping: Promise<number | null> | undefined;
  return {
    label: spec.label,
    pid,
    /** Base URL from the ready line, e.g. `http://127.0.0.1:41234`. */
    url,
    /** Milliseconds from spawn to the ready line on stdout. */
    readyMs,
    /** Current /proc figures; throws when the process is gone. */
    stats() {
      const stats = readProcStats(pid);
      if (!stats) throw new Error(`${spec.label} (pid ${pid}) is gone\n${stderr}`);
      return stats;
    },
    /** SIGTERM, then SIGKILL after `graceMs`; the exit code (null when killed). One stop however often it is asked for. */
    stop(graceMs = 10_000): Promise<number | null> {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        const [code] = await exited;
        clearTimeout(timer);
        return code;
      })();
      return stopping;
    },
  };
}
