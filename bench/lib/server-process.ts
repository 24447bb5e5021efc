import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { allowedCpusOf, nodeCommand } from './cpu-pinning.js';
import { readProcStats, type ProcStats } from './proc-stats.js';

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

/** A started server process. */
export interface RunningServer {
  readonly label: string;
  readonly pid: number;
  /** Base URL from the ready line, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Milliseconds from spawn to the ready line on stdout. */
  readonly readyMs: number;
  /** Current /proc figures; throws when the process is gone. */
  stats(): ProcStats;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (null when killed). */
  stop(graceMs?: number): Promise<number | null>;
}

const READY_URL = /https?:\/\/[\w.-]+:\d+/;

type ServerChild = ChildProcessByStdio<null, Readable, Readable>;
type Exit = Promise<[number | null, NodeJS.Signals | null]>;

function spawnNode(spec: ServerSpec): ServerChild {
  const { command, args } = nodeCommand(spec.args, spec.cpu);
  return spawn(command, args, { cwd: process.cwd(), env: { ...process.env, ...spec.env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Fails the start when the kernel does not hold the server to its CPU: a report must not claim a pinning that did not happen. */
function checkAffinity(spec: ServerSpec, pid: number): void {
  if (spec.cpu === undefined) return;
  const allowed = allowedCpusOf(pid);
  if (allowed.length !== 1 || allowed[0] !== spec.cpu) {
    throw new Error(`${spec.label} (pid ${pid}) runs on CPUs ${allowed.join(',')}, not on CPU ${spec.cpu} alone`);
  }
}

/** The last 8 KiB of stderr, to explain failures. */
function stderrTail(child: ServerChild): () => string {
  let tail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    tail = (tail + text).slice(-8192);
  });
  return () => tail;
}

/** Stdout up to the ready line (kept to explain a failed start); after it, the request log is drained and dropped. */
interface StdoutWatch {
  readonly ready: Promise<{ url: string; readyMs: number }>;
  head(): string;
}

function watchStdout(child: ServerChild, started: number): StdoutWatch {
  let head = '';
  let ready = false;
  const promise = new Promise<{ url: string; readyMs: number }>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (ready) return;
      head += chunk.toString('utf8');
      const match = READY_URL.exec(head);
      if (!match) return;
      ready = true;
      resolve({ url: match[0], readyMs: performance.now() - started });
    });
  });
  return { ready: promise, head: () => head };
}

/** The ready line, or an error when the server exits first or stays silent for `timeoutMs`. */
async function awaitReady(spec: ServerSpec, stdout: StdoutWatch, exited: Exit, stderr: () => string, timeoutMs: number) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${spec.label}: no ready line within ${timeoutMs} ms\n${stderr()}${stdout.head()}`)), timeoutMs);
  });
  const early = exited.then(([code, signal]): never => {
    throw new Error(`${spec.label} exited (${code ?? signal}) before it was ready\n${stderr()}${stdout.head()}`);
  });
  try {
    return await Promise.race([stdout.ready, timeout, early]);
  } finally {
    clearTimeout(timer);
    early.catch(() => {}); // the exit after a stop is not an error
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; one stop however often it is asked for. */
function stopper(child: ServerChild, exited: Exit): (graceMs?: number) => Promise<number | null> {
  let stopping: Promise<number | null> | undefined;
  return (graceMs = 10_000) => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const [code] = await exited;
      clearTimeout(timer);
      return code;
    })();
    return stopping;
  };
}

/**
 * Spawns `node <args>` (through `taskset -c` when the spec names a CPU)
 * with stdout piped and waits for the first stdout line holding a URL (the
 * ready line). After that stdout keeps being drained, so a server that logs
 * every request never blocks on a full pipe; stderr is kept (last 8 KiB)
 * to explain failures.
 */
export async function startServer(spec: ServerSpec, timeoutMs = 20_000): Promise<RunningServer> {
  const started = performance.now();
  const child = spawnNode(spec);
  const stderr = stderrTail(child);
  const stdout = watchStdout(child, started);
  const exited = once(child, 'exit') as Exit;
  let ready: { url: string; readyMs: number };
  try {
    ready = await awaitReady(spec, stdout, exited, stderr, timeoutMs);
    checkAffinity(spec, child.pid!);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const pid = child.pid!;
  return {
    label: spec.label,
    pid,
    ...ready,
    stats() {
      const stats = readProcStats(pid);
      if (!stats) throw new Error(`${spec.label} (pid ${pid}) is gone\n${stderr()}`);
      return stats;
    },
    stop: stopper(child, exited),
  };
}
