import { describe, expect, it } from 'vitest';
import { splitOf } from '../../bench/lib/callgrind.js';
import { parseInstructionOptions } from '../../bench/lib/instruction-options.js';
import { compareBuilds, perRequest, renderInstructionReport, repeated, type BuildCounts, type PerRequest } from '../../bench/lib/instruction-report.js';

describe('bench:instructions options', () => {
  it('counts the working tree on Node 24, every scenario, logging off, twice', () => {
    const options = parseInstructionOptions([]);
    expect(options).toMatchObject({ commits: undefined, node: '24', logging: false, repeats: 2, warm: 3_000, measured: 2_000, seed: 10_000, lean: false });
    expect(options.scenarios).toEqual(['create', 'list-20', 'list-100', 'get']);
  });

  it('takes two commits after --compare, and scenarios in the order they run', () => {
    const options = parseInstructionOptions(['--', '--compare', '0d06170', 'HEAD', '--scenario', 'get,create', '--node', '20', '--logging', 'on']);
    expect(options.commits).toEqual(['0d06170', 'HEAD']);
    expect(options.scenarios).toEqual(['create', 'get']);
    expect(options).toMatchObject({ node: '20', logging: true });
  });

  it('refuses a compare without two commits, a stray commit, an unknown scenario and counts that are not whole', () => {
    expect(() => parseInstructionOptions(['--compare', 'HEAD'])).toThrow(/--compare takes two commits, got 1/);
    expect(() => parseInstructionOptions(['HEAD'])).toThrow(/unexpected argument 'HEAD'/);
    expect(() => parseInstructionOptions(['--scenario', 'list-50'])).toThrow(/unknown scenario 'list-50'/);
    expect(() => parseInstructionOptions(['--measured', '2.5'])).toThrow(/--measured must be a whole number of at least 1/);
    expect(() => parseInstructionOptions(['--repeats', '0'])).toThrow(/--repeats must be a whole number/);
    expect(() => parseInstructionOptions(['--logging', 'both'])).toThrow(/--logging must be off or on/);
    expect(() => parseInstructionOptions(['--node', '22'])).toThrow(/--node must be one of 20, 24, 26/);
  });
});

describe('bench:instructions arithmetic', () => {
  it('splits a window by what ran it: V8 compiling and garbage collection apart from the work, JIT code always work', () => {
    const functions = new Map([
      ['v8::internal::compiler::PipelineImpl::Run', 30],
      ['v8::internal::Scavenger::ScavengePage', 20],
      ['sqlite3VdbeExec', 40],
      ['JS:handleRequest server.js:1:1', 9],
      ['0x0000000000001000', 1],
    ]);
    expect(splitOf(functions)).toEqual({ mutator: 50, compile: 30, gc: 20 });
  });

  it('divides a window by the requests it answered; steady leaves compiling out', () => {
    expect(perRequest({ mutator: 3_000, compile: 1_000, gc: 500 }, 10)).toEqual({ total: 450, steady: 350, mutator: 300, compile: 100, gc: 50 });
    expect(() => perRequest({ mutator: 1, compile: 0, gc: 0 }, 0)).toThrow(/needs answered requests/);
  });

  it('gives the median of the repeats and their spread over it', () => {
    expect(repeated([100, 104, 102])).toEqual({ median: 102, min: 100, max: 104, spread: 4 / 102 });
    expect(repeated([200, 210]).median).toBe(205);
  });

  const counts = (steady: readonly number[]): PerRequest[] => steady.map((value) => ({ total: value + 50, steady: value, mutator: value, compile: 50, gc: 0 }));
  const a: BuildCounts = {
    label: '0d06170',
    commit: '0d06170aaaa',
    counts: new Map([
      ['create', counts([400_000, 404_000])],
      ['list-20', counts([200_000, 200_000])],
      ['get', counts([100_000])],
    ]),
  };
  const b: BuildCounts = {
    label: 'a5bbb71',
    commit: 'a5bbb71bbbb',
    counts: new Map([
      ['create', counts([440_000, 444_000])],
      ['list-20', counts([208_000, 212_000])],
      ['get', counts([150_000])],
    ]),
  };

  it('compares B with A per scenario on steady instructions; the target allows 5 % more on create and the lists only', () => {
    const rows = compareBuilds(a, b);
    expect(rows.map((row) => [row.scenario, row.ratio, row.pass])).toEqual([
      ['create', 442_000 / 402_000, false],
      ['list-20', 210_000 / 200_000, true],
      ['get', 1.5, undefined],
    ]);
  });

  it('writes every count, the comparison and its verdicts into the report', () => {
    const report = renderInstructionReport({
      startedAt: new Date('2026-12-05T07:00:00Z'),
      command: 'pnpm bench:instructions --compare 0d06170 HEAD',
      nodeVersion: '24.1.0',
      valgrindVersion: 'valgrind-3.19.0',
      options: parseInstructionOptions(['--compare', '0d06170', 'HEAD']),
      builds: [a, b],
      errors: [],
    });
    expect(report).toContain('# Instructions per request, Node 24.1.0 (2026-12-05 07:00 UTC)');
    expect(report).toContain('| create | 402,000 | 442,000 | 1.100 | 1.0 % | 0.9 % | **MISS** |');
    expect(report).toContain('| list-20 | 200,000 | 210,000 | 1.050 | 0.0 % | 1.9 % | pass |');
    expect(report).toContain('| a5bbb71 | get | 1 | 150,050 | 150,000 | 50 | 0 |');
    expect(report).toContain('- a5bbb71: `a5bbb71bbbb`');
  });
});
