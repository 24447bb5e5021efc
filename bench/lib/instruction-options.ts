import { parseArgs, type ParseArgsConfig } from 'node:util';
import { NODE_LINES, type NodeLine } from './node-line.js';

/** The request paths counted, on SQLite: the bench's scenarios of the same names. */
export const COUNTED_SCENARIOS = ['create', 'list-20', 'list-100', 'get'] as const;
export type CountedScenario = (typeof COUNTED_SCENARIOS)[number];

const USAGE = `usage: pnpm bench:instructions [--compare COMMIT_A COMMIT_B] [--node 20|24|26] [--scenario name[,name…]]
  [--logging off|on] [--lean] [--repeats N] [--warm N] [--measured N] [--seed N] [--connections N] [--functions N]
  [--no-write] [--out DIR] [--keep]
Counts instructions per request of the service under valgrind --tool=callgrind, on SQLite.
--compare A B: checks each commit out into a temporary git worktree, installs, builds and counts it;
  the report gives B / A per scenario. Without it: the working tree's own build (run \`pnpm build\` first)
--lean: also counts the lean SQLite server (bench/baselines of this checkout)
--repeats: counts per build and scenario, each in a fresh process (default 2): the report shows their spread
--warm / --measured: requests per scenario before counting (default 3000) and counted (default 2000)
--seed: plants the reads run over (default 10000); --connections: concurrent connections of the client (default 32)
--functions N: the N functions whose own instructions per request differ most between A and B (JIT code named)
scenarios: ${COUNTED_SCENARIOS.join(', ')}`;

const ARG_OPTIONS = {
  compare: { type: 'boolean', default: false },
  node: { type: 'string', default: '24' },
  scenario: { type: 'string', multiple: true },
  logging: { type: 'string', default: 'off' },
  lean: { type: 'boolean', default: false },
  repeats: { type: 'string' },
  warm: { type: 'string' },
  measured: { type: 'string' },
  seed: { type: 'string' },
  connections: { type: 'string' },
  functions: { type: 'string' },
  'no-write': { type: 'boolean', default: false },
  out: { type: 'string', default: 'bench/reports' },
  keep: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const satisfies ParseArgsConfig['options'];

/** A whole number of at least `min`, or `fallback` when not given. */
function count(name: string, text: string | undefined, fallback: number, min = 1): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be a whole number of at least ${min}\n${USAGE}`);
  return value;
}

export type InstructionOptions = ReturnType<typeof parseInstructionOptions>;

/** Parses the command line of `pnpm bench:instructions`. */
export function parseInstructionOptions(argv: readonly string[]) {
  const { values, positionals } = parseArgs({ args: argv[0] === '--' ? argv.slice(1) : [...argv], options: ARG_OPTIONS, allowPositionals: true });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (values.compare && positionals.length !== 2) throw new Error(`--compare takes two commits, got ${positionals.length}\n${USAGE}`);
  if (!values.compare && positionals.length > 0) throw new Error(`unexpected argument '${positionals[0]}' (commits go after --compare)\n${USAGE}`);
  const requested = (values.scenario ?? []).flatMap((entry) => entry.split(',')).filter(Boolean);
  for (const name of requested) {
    if (!(COUNTED_SCENARIOS as readonly string[]).includes(name)) throw new Error(`unknown scenario '${name}'\n${USAGE}`);
  }
  if (values.logging !== 'off' && values.logging !== 'on') throw new Error(`--logging must be off or on\n${USAGE}`);
  if (!(NODE_LINES as readonly string[]).includes(values.node)) throw new Error(`--node must be one of ${NODE_LINES.join(', ')}\n${USAGE}`);
  return {
    /** The two commits (as given) whose builds are counted and compared; none: the working tree's build. */
    commits: values.compare ? ([positionals[0]!, positionals[1]!] as const) : undefined,
    node: values.node as NodeLine,
    /** In the order they run: create on a server of its own, the reads on one seeded server. */
    scenarios: COUNTED_SCENARIOS.filter((name) => requested.length === 0 || requested.includes(name)),
    logging: values.logging === 'on',
    lean: values.lean,
    repeats: count('repeats', values.repeats, 2),
    warm: count('warm', values.warm, 3_000, 0),
    measured: count('measured', values.measured, 2_000),
    seed: count('seed', values.seed, 10_000, 101),
    connections: count('connections', values.connections, 32),
    functions: count('functions', values.functions, 0, 0),
    write: !values['no-write'],
    outDir: values.out,
    keep: values.keep,
  };
}
