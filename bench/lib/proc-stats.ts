import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** What the kernel says about a process: memory and CPU time used so far. */
export interface ProcStats {
  /** Resident set size now (VmRSS). */
  readonly rssBytes: number;
  /** User + system CPU time since start, seconds. */
  readonly cpuSeconds: number;
}

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

function statusKilobytes(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** Reads /proc/<pid>/status and /proc/<pid>/stat; `undefined` once the process is gone. */
export function readProcStats(pid: number): ProcStats | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name (which may contain spaces):
    // index 0 is field 3 (state), so utime (14) and stime (15) are 11 and 12.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return {
      rssBytes: statusKilobytes(status, 'VmRSS'),
      cpuSeconds: ticks / ticksPerSecond,
    };
  } catch {
    return undefined;
  }
}
