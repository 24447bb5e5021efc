import type { InstructionSplit } from './callgrind.js';
import type { FunctionDifference } from './callgrind-functions.js';
import type { CountedScenario, InstructionOptions } from './instruction-options.js';
import { median } from './stats.js';

/** One counted window divided by the requests it answered. */
export interface PerRequest {
  readonly total: number;
  /** All but V8's compiling, whose share of a window varies from run to run by the tenth; what builds are compared on. */
  readonly steady: number;
  readonly mutator: number;
  readonly compile: number;
  readonly gc: number;
}

/** Instructions per request of one window: every instruction of the process in it, split by kind. */
export function perRequest(split: InstructionSplit, requests: number): PerRequest {
  if (!(requests > 0)) throw new Error(`a counted window needs answered requests, got ${requests}`);
  return {
    total: (split.mutator + split.compile + split.gc) / requests,
    steady: (split.mutator + split.gc) / requests,
    mutator: split.mutator / requests,
    compile: split.compile / requests,
    gc: split.gc / requests,
  };
}

/** The repeats of one build and scenario: their median, and how far apart they were (max − min over the median). */
export interface Repeated {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly spread: number;
}

export function repeated(values: readonly number[]): Repeated {
  if (values.length === 0) throw new Error('no counts to summarize');
  const middle = median(values);
  const min = Math.min(...values);
  const max = Math.max(...values);
  return { median: middle, min, max, spread: middle === 0 ? 0 : (max - min) / middle };
}

/** What was counted for one build (a commit, the working tree, or the lean server): per scenario, one entry per repeat. */
export interface BuildCounts {
  /** How the report names it: `a5bbb71`, `working tree`, `lean server`. */
  readonly label: string;
  /** The commit the build came from, when it came from one. */
  readonly commit?: string;
  readonly counts: ReadonlyMap<CountedScenario, readonly PerRequest[]>;
}

/** Instructions per request may grow by at most this much from A to B (create and both lists). */
export const INSTRUCTION_TARGET = 1.05;
const TARGETED: readonly CountedScenario[] = ['create', 'list-20', 'list-100'];

export interface ComparedRow {
  readonly scenario: CountedScenario;
  readonly a: Repeated;
  readonly b: Repeated;
  /** B's median over A's: above 1, B runs more instructions per request. */
  readonly ratio: number;
  /** Whether B stays within the target (only create and the lists have one). */
  readonly pass: boolean | undefined;
}

/** B against A per scenario both counted, on steady instructions per request (all but compiling). */
export function compareBuilds(a: BuildCounts, b: BuildCounts): ComparedRow[] {
  const rows: ComparedRow[] = [];
  for (const [scenario, bCounts] of b.counts) {
    const aCounts = a.counts.get(scenario);
    if (aCounts === undefined || aCounts.length === 0 || bCounts.length === 0) continue;
    const aTotal = repeated(aCounts.map((count) => count.steady));
    const bTotal = repeated(bCounts.map((count) => count.steady));
    const ratio = bTotal.median / aTotal.median;
    rows.push({ scenario, a: aTotal, b: bTotal, ratio, pass: TARGETED.includes(scenario) ? ratio <= INSTRUCTION_TARGET : undefined });
  }
  return rows;
}

/** `123,456`: instructions are whole numbers in the tables. */
const whole = (value: number) => Math.round(value).toLocaleString('en-US');
const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

export interface InstructionReportInput {
  readonly startedAt: Date;
  readonly command: string;
  readonly nodeVersion: string;
  readonly valgrindVersion: string;
  readonly options: InstructionOptions;
  readonly builds: readonly BuildCounts[];
  /** Per scenario, the functions whose own instructions per request differ most between the first two builds. */
  readonly functions?: ReadonlyMap<CountedScenario, readonly FunctionDifference[]>;
  readonly errors: readonly string[];
}

/** The Markdown report: every count, the spread of the repeats, and B / A when two commits were compared. */
export function renderInstructionReport(input: InstructionReportInput): string {
  const { options } = input;
  const lines = [
    `# Instructions per request, Node ${input.nodeVersion} (${input.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
    '',
    `Command: \`${input.command}\``,
    '',
    `SQLite, logging ${options.logging ? 'on' : 'off'}; ${input.valgrindVersion}; ${options.repeats} repeat(s) per build and scenario, each a fresh process; ` +
      `${options.warm.toLocaleString('en-US')} requests to warm up, then ${options.measured.toLocaleString('en-US')} counted, ` +
      `${options.connections} connections; reads over ${options.seed.toLocaleString('en-US')} plants.`,
    '',
  ];
  if (input.errors.length) lines.push('## Errors', '', ...input.errors.map((error) => `- ${error}`), '');
  const [a, b] = input.builds.filter((build) => build.label !== 'lean server');
  if (a && b) {
    lines.push(
      `## ${b.label} against ${a.label}`,
      '',
      `Instructions per request but V8's compiling (work + gc below; median of the repeats); target: B / A ≤ ${INSTRUCTION_TARGET.toFixed(2)} on create and both lists.`,
      '',
      `| scenario | A: ${a.label} | B: ${b.label} | B / A | spread A | spread B | target |`,
      '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    );
    for (const row of compareBuilds(a, b)) {
      const verdict = row.pass === undefined ? 'none' : row.pass ? 'pass' : '**MISS**';
      lines.push(
        `| ${row.scenario} | ${whole(row.a.median)} | ${whole(row.b.median)} | ${row.ratio.toFixed(3)} | ${percent(row.a.spread)} | ${percent(row.b.spread)} | ${verdict} |`,
      );
    }
    lines.push('');
  }
  lines.push(
    '## Every count',
    '',
    'Per request: all instructions of the server process (every thread) in the counted window, split into the work itself (JavaScript, ' +
      'Node, SQLite, libc), V8 compiling and garbage collection.',
    '',
    '| build | scenario | repeat | total | work | compile | gc |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const build of input.builds) {
    for (const [scenario, counts] of build.counts) {
      counts.forEach((count, index) => {
        lines.push(
          `| ${build.label} | ${scenario} | ${index + 1} | ${whole(count.total)} | ${whole(count.mutator)} | ${whole(count.compile)} | ${whole(count.gc)} |`,
        );
      });
    }
  }
  lines.push('');
  if (input.functions?.size && a && b) {
    lines.push('## Where the difference goes', '', `Own instructions per request of the functions that differ most, A: ${a.label}, B: ${b.label}.`, '');
    for (const [scenario, rows] of input.functions) {
      lines.push(`### ${scenario}`, '', '| function | A | B | B − A |', '| --- | ---: | ---: | ---: |');
      for (const row of rows) {
        lines.push(`| \`${row.name.slice(0, 100).replaceAll('|', '\\|')}\` | ${whole(row.a)} | ${whole(row.b)} | ${whole(row.b - row.a)} |`);
      }
      lines.push('');
    }
  }
  const commits = input.builds.filter((build) => build.commit !== undefined);
  if (commits.length) lines.push('## Commits', '', ...commits.map((build) => `- ${build.label}: \`${build.commit}\``), '');
  lines.push(
    '## Method',
    '',
    'Each server runs under `valgrind --tool=callgrind --instr-atstart=no --fair-sched=yes` with JIT on, `NODE_ENV=production`: ' +
      'start-up, seeding and warm-up run uncounted; `callgrind_control --instr=on` opens the window, the client (not under valgrind, on loopback) ' +
      'sends the counted requests with fixed inputs (seeded ids and cursors), and `callgrind_control --dump` closes it. The count divided by the ' +
      "requests answered is the figure. create runs on a server of its own with one subscription whose receiver never answers (as the bench's " +
      'create); list-20, list-100 and get share one seeded server, in that order. Counts depend on the build, the Node version and the inputs, ' +
      'not on how busy the machine is; compare counts of one run, or of runs on the same Node version.',
    '',
  );
  return lines.join('\n');
}
