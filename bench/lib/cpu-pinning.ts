import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Where the processes of a run execute. Pinned, every server gets one core
 * and the harness another: unpinned, a server's own threads (SQLite's
 * checkpoint, V8's GC helpers, libuv's pool) borrow the load generator's core.
 */
export type CpuPinning =
  | { readonly pinned: true; readonly serverCpu: number; readonly harnessCpu: number }
  | { readonly pinned: false; readonly reason: string };

/** What the machine offers, read once at start. */
export interface PinningProbe {
  /** The CPUs this process may run on (its affinity list), ascending. */
  readonly allowedCpus: readonly number[];
  readonly tasksetAvailable: boolean;
}

/** `0-2,5` (the kernel's list format, as in /proc/<pid>/status Cpus_allowed_list) → [0, 1, 2, 5]. */
export function parseCpuList(text: string): number[] {
  const cpus = new Set<number>();
  for (const part of text.trim().split(',').filter(Boolean)) {
    const [first, last = first] = part.split('-').map(Number) as [number, number?];
    if (!Number.isInteger(first) || !Number.isInteger(last) || last < first) throw new Error(`not a CPU list: '${text}'`);
    for (let cpu = first; cpu <= last; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** The affinity list of a process: from /proc, which, unlike taskset's output, is never translated. */
export function allowedCpusOf(pid: number | 'self'): number[] {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^Cpus_allowed_list:\s*(\S+)/m.exec(status);
  if (!match) throw new Error(`/proc/${pid}/status has no Cpus_allowed_list`);
  return parseCpuList(match[1]!);
}

function tasksetAvailable(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function probePinning(): PinningProbe {
  return { allowedCpus: allowedCpusOf('self'), tasksetAvailable: tasksetAvailable() };
}

/** Servers on the first CPU this process may use and the harness on the second; unpinned, with the reason, when that cannot be done. */
export function planCpuPinning(wanted: boolean, probe: PinningProbe): CpuPinning {
  if (!wanted) return { pinned: false, reason: '--pin off' };
  if (!probe.tasksetAvailable) return { pinned: false, reason: 'taskset (util-linux) not found' };
  const [serverCpu, harnessCpu] = probe.allowedCpus;
  if (serverCpu === undefined || harnessCpu === undefined) {
    return { pinned: false, reason: `only ${probe.allowedCpus.length} CPU available, pinning needs 2` };
  }
  return { pinned: true, serverCpu, harnessCpu };
}

/** One line for the log and the report. */
export function describePinning(pinning: CpuPinning): string {
  return pinning.pinned
    ? `server processes pinned to CPU ${pinning.serverCpu}, harness and load generator to CPU ${pinning.harnessCpu}`
    : `not pinned (${pinning.reason})`;
}

/** Moves every thread of this process (`-a`) to the harness CPU; threads started later inherit it. */
export function pinHarness(pinning: CpuPinning): void {
  if (!pinning.pinned) return;
  execFileSync('taskset', ['-a', '-cp', String(pinning.harnessCpu), String(process.pid)], { stdio: 'ignore' });
}

/**
 * `taskset -c cpu node …`: taskset sets the affinity and execs node in its
 * place, so the spawned PID is node's own (its /proc figures are what is
 * measured) and every thread node starts is on that CPU from the first.
 */
export function nodeCommand(args: readonly string[], cpu: number | undefined): { command: string; args: string[] } {
  if (cpu === undefined) return { command: process.execPath, args: [...args] };
  return { command: 'taskset', args: ['-c', String(cpu), process.execPath, ...args] };
}
