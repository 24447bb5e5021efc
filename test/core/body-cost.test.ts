import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TSX } from '../support/cli-process.js';

// A create body's parse and validation must cost time linear in its size:
// a 64 KB number shaped 1000…0001 once took 7 s of CPU and froze the event
// loop for every tenant. The bodies run in a child process, so a hang fails
// this test at its deadline instead of stalling the whole suite.
const WORKER = fileURLToPath(new URL('./body-cost-worker.ts', import.meta.url));
const MAX_BODY = 64 * 1024;
/** Generous: linear parsing takes well under 0.1 ms per KB; the quadratic bug took ~100 ms per KB. */
const CPU_MS_PER_KB = 2;
const CPU_MS_FIXED = 25;

interface Cost {
  readonly bytes: number;
  readonly cpuMs: number;
}

function measure(bodies: readonly string[], deadlineMs = 20_000): Promise<Cost[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=source', '--import', TSX, WORKER], { stdio: ['pipe', 'pipe', 'inherit'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`parsing ${bodies.length} bodies did not finish within ${deadlineMs} ms`));
    }, deadlineMs);
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(output) as Cost[]);
      else reject(new Error(`worker exited with ${code}`));
    });
    child.stdin.end(JSON.stringify(bodies));
  });
}

/** Digit runs that stress every step of number handling: zero runs, nines, huge exponents, fractions. */
const digitRun = fc
  .tuple(fc.constantFrom('0', '9', '1', '00', '10'), fc.integer({ min: 1_000, max: 60_000 }))
  .map(([unit, count]) => unit.repeat(Math.ceil(count / unit.length)));
const pathologicalNumber = fc
  .tuple(
    fc.constantFrom('', '-'),
    fc.constantFrom('1', '0', ''),
    digitRun,
    fc.constantFrom('', '1', '0'),
    fc.constantFrom('', '.', '.0'),
    fc.constantFrom('', 'e-40000', 'e+5', 'E999999', 'e0'),
  )
  .map(([sign, lead, run, tail, fraction, exponent]) => `${sign}${lead || '1'}${run}${tail}${fraction === '.' ? '.5' : fraction}${exponent}`);
const field = fc.constantFrom('id', 'name', 'tag', 'extra');

function bodyWith(number: string, key: string): string {
  const body = key === 'id' ? `{"id":${number},"name":"x"}` : `{"id":1,"name":"x","${key}":${number}}`;
  return body.slice(0, MAX_BODY);
}

describe('create body cost', () => {
  it('the reported 1000…0001 body parses in linear time', async () => {
    const [cost] = await measure([`{"id":1${'0'.repeat(64_000)}1,"name":"x"}`]);
    expect(cost!.cpuMs).toBeLessThan(CPU_MS_FIXED + (CPU_MS_PER_KB * cost!.bytes) / 1024);
  });

  it('pathological numbers in any field stay within a CPU budget per KB', async () => {
    const bodies = fc.sample(
      fc.tuple(pathologicalNumber, field).map(([number, key]) => bodyWith(number, key)),
      { numRuns: 60, seed: 8 },
    );
    const costs = await measure(bodies);
    for (const [index, cost] of costs.entries()) {
      const budget = CPU_MS_FIXED + (CPU_MS_PER_KB * cost.bytes) / 1024;
      expect(cost.cpuMs, `body ${index} (${cost.bytes} bytes, starts ${bodies[index]!.slice(0, 40)}…)`).toBeLessThan(budget);
    }
  });
});
