import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readProcStats, type ProcStats } from './proc-stats.js';

/** How to start one server: a node command line and its environment. */
export interface ServerSpec {
  /** Short name used in the report, e.g. `service (sqlite)`. */
  readonly label: string;
  /** Arguments for `node` (process.execPath). */
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** A started server process. */
export interface RunningServer {
  readonly label: string;
  readonly pid: number;
  /** Base URL from the ready line, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Milliseconds from spawn to the ready line on stdout. */
  readonly readyMs: number;
  /** Lines written to stdout after the ready line (the request log), counted, not kept. */
  logLines(): number;
  /** Current /proc figures; throws when the process is gone. */
  stats(): ProcStats;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (null when killed). */
  stop(graceMs?: number): Promise<number | null>;
}

const READY_URL = /https?:\/\/[\w.-]+:\d+/;

/**
 * Spawns `node <args>` with stdout piped and waits for the first stdout line
 * holding a URL (the ready line). After that stdout keeps being drained, so
 * a server that logs every request never blocks on a full pipe; stderr is
 * kept (last 8 KiB) to explain failures.
 */
export async function startServer(spec: ServerSpec, timeoutMs = 20_000): Promise<RunningServer> {
  const started = performance.now();
  const child = spawn(process.execPath, spec.args, {
    cwd: process.cwd(),
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr = (stderr + text).slice(-8192);
  });
  let pending = '';
  let lines = 0;
  let readyMs = 0;
  let url: string | undefined;
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${spec.label}: no ready line within ${timeoutMs} ms\n${stderr}${pending}`)), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (url !== undefined) {
        for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
        return;
      }
      pending += chunk.toString('utf8');
      const match = READY_URL.exec(pending);
      if (!match) return;
      readyMs = performance.now() - started;
      url = match[0];
      const rest = pending.slice(pending.indexOf('\n', match.index) + 1);
      lines = rest.split('\n').length - 1;
      clearTimeout(timer);
      resolve();
    });
    void exited.then(([code, signal]) => {
      clearTimeout(timer);
      reject(new Error(`${spec.label} exited (${code ?? signal}) before it was ready\n${stderr}${pending}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const pid = child.pid!;
  let stopping: Promise<number | null> | undefined;
  return {
    label: spec.label,
    pid,
    url: url!,
    readyMs,
    logLines: () => lines,
    stats() {
      const stats = readProcStats(pid);
      if (!stats) throw new Error(`${spec.label} (pid ${pid}) is gone\n${stderr}`);
      return stats;
    },
    stop(graceMs = 10_000) {
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
