// The benchmark harness's CPU pinning: the plan from what the machine
// offers, the --pin option, and a real spawned node process held to one CPU
// with all its threads, its PID being node's own (the PID whose /proc
// figures the benchmark reports).
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseBenchOptions } from '../../bench/lib/bench-options.js';
import { allowedCpusOf, describePinning, parseCpuList, planCpuPinning, probePinning } from '../../bench/lib/cpu-pinning.js';
import { startServer, type RunningServer } from '../../bench/lib/server-process.js';

describe('planCpuPinning', () => {
  it('puts the servers on the first allowed CPU and the harness on the second', () => {
    const plan = planCpuPinning(true, { allowedCpus: [0, 1], tasksetAvailable: true });
    expect(plan).toEqual({ pinned: true, serverCpu: 0, harnessCpu: 1 });
    expect(describePinning(plan)).toBe('server processes pinned to CPU 0, harness and load generator to CPU 1');
    expect(planCpuPinning(true, { allowedCpus: parseCpuList('2-3,6'), tasksetAvailable: true })).toEqual({ pinned: true, serverCpu: 2, harnessCpu: 3 });
  });

  it('runs unpinned, saying why, when asked to, without taskset or with one CPU', () => {
    expect(describePinning(planCpuPinning(false, { allowedCpus: [0, 1], tasksetAvailable: true }))).toBe('not pinned (--pin off)');
    expect(describePinning(planCpuPinning(true, { allowedCpus: [0, 1], tasksetAvailable: false }))).toBe('not pinned (taskset (util-linux) not found)');
    expect(describePinning(planCpuPinning(true, { allowedCpus: [0], tasksetAvailable: true }))).toBe('not pinned (only 1 CPU available, pinning needs 2)');
  });

  it('reads the kernel list format', () => {
    expect(parseCpuList('0-1\n')).toEqual([0, 1]);
    expect(parseCpuList('5,0-2')).toEqual([0, 1, 2, 5]);
    expect(() => parseCpuList('3-1')).toThrow(/not a CPU list/);
  });
});

describe('--pin', () => {
  it('is on by default, off when asked, and nothing else', () => {
    expect(parseBenchOptions([]).pin).toBe(true);
    expect(parseBenchOptions(['--pin', 'on']).pin).toBe(true);
    expect(parseBenchOptions(['--', '--pin', 'off']).pin).toBe(false);
    expect(() => parseBenchOptions(['--pin', 'yes'])).toThrow(/--pin must be on or off/);
  });
});

const plan = planCpuPinning(true, probePinning());

describe.runIf(plan.pinned)('a server started on one CPU', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.stop(1_000);
  });

  it('is the node process itself, with every thread on that CPU', async () => {
    const cpu = plan.pinned ? plan.serverCpu : 0;
    // A worker thread on top of node's own helpers: threads started later must inherit the CPU too.
    const script = `new (require('node:worker_threads').Worker)('setInterval(() => {}, 1000)', { eval: true }).on('online', () => console.log('ready on http://127.0.0.1:1'));`;
    server = await startServer({ label: 'pinned', args: ['-e', script], cpu });
    expect(readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0')[0]).toBe(process.execPath);
    const threads = readdirSync(`/proc/${server.pid}/task`).map(Number);
    expect(threads.length).toBeGreaterThan(5);
    for (const thread of threads) expect(allowedCpusOf(thread), `thread ${thread}`).toEqual([cpu]);
  });

  it('runs on every CPU when no CPU is given', async () => {
    server = await startServer({ label: 'unpinned', args: ['-e', `console.log('ready on http://127.0.0.1:1'); setInterval(() => {}, 1000);`] });
    expect(allowedCpusOf(server.pid)).toEqual(allowedCpusOf('self'));
  });
});
