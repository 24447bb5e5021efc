import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A node process under valgrind's callgrind with counting off until
 * `count()` turns it on: the start-up, seeding and warm-up it runs before
 * are not counted, only a window of work the caller chooses.
 */
export interface CountedProcess {
  /** Base URL from the ready line. */
  readonly url: string;
  /** Turns counting on (`callgrind_control -i on`). */
  count(): Promise<void>;
  /** Writes what was counted since `count()` and reads it back, split by kind of work; then kills the process. */
  finish(): Promise<CountedWindow>;
}

/** What a window counted: its instructions split by kind, the dump they were read from, and the counted process's id. */
export interface CountedWindow {
  readonly split: InstructionSplit;
  readonly dump: string;
  readonly pid: string;
}

/** Instructions counted, split by what ran them. */
export interface InstructionSplit {
  /** JavaScript and the native code it calls: the work itself. */
  readonly mutator: number;
  /** V8's compilers (optimizing a function, parsing one): how much of it lands in the window varies from run to run. */
  readonly compile: number;
  /** The garbage collector: when a collection falls in the window varies too. */
  readonly gc: number;
}

const READY_URL = /https?:\/\/[\w.-]+:\d+/;

/**
 * Starts `node args` under callgrind, with counting off. V8's optimized code
 * is counted like any other code (valgrind translates it as it appears);
 * `--fair-sched` lets V8's compiler threads run as they would, so a warm-up
 * ends with the code optimized.
 */
export async function startCounted(args: readonly string[], env: NodeJS.ProcessEnv, dir: string): Promise<CountedProcess> {
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', '--instr-atstart=no', '--fair-sched=yes', `--callgrind-out-file=${join(dir, 'callgrind.%p')}`, process.execPath, ...args],
    { env, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const url = await readyUrl(child);
  const pid = String(child.pid);
  return {
    url,
    count: async () => void (await run('callgrind_control', ['-i', 'on', pid])),
    async finish() {
      await run('callgrind_control', ['-d', pid]);
      child.kill('SIGKILL');
      await once(child, 'exit');
      const dump = await dumpOf(dir, pid);
      return { split: await splitOf(dump), dump, pid };
    },
  };
}

function readyUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const url = READY_URL.exec(seen)?.[0];
      if (url === undefined) return;
      // The request log is not read from here on, but keeps flowing.
      child.stdout!.off('data', onData).on('data', () => {});
      child.off('exit', onExit);
      resolveUrl(url);
    };
    const onExit = () => reject(new Error(`the process exited before its ready line: ${seen.slice(-500)}`));
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

/** The dump `callgrind_control -d` wrote: the first part of the process's output file. */
async function dumpOf(dir: string, pid: string): Promise<string> {
  const dump = join(dir, `callgrind.${pid}.1`);
  await access(dump).catch(() => {
    throw new Error(`callgrind wrote no dump for process ${pid} in ${dir}`);
  });
  return dump;
}

// Native functions by the part of V8 they belong to; the JIT's own code has no symbol and counts as the mutator.
// V8's JavaScript parsers by their full names: Node's HTTP parser (`node::…::Parser`) and V8's JSON parser
// (`JsonParser`, JSON.parse) are the request's own work.
const COMPILE = /compiler::|maglev|Maglev|interpreter::|v8::internal::(?:Pre)?Parser(?:Base)?\b|Compile|BytecodeGenerator|baseline::|Zone/;
const GC = /Scaveng|MarkCompact|Marking|Sweep|Evacuat|Heap::|GCTracer|Worklist|RememberedSet|SlotSet|MemoryChunk|ConcurrentMark|Visitor|Visit/;

/** The dump's instructions per function (callgrind_annotate's listing), summed by kind. */
async function splitOf(dump: string): Promise<InstructionSplit> {
  const { stdout } = await run('callgrind_annotate', ['--threshold=100', dump], { maxBuffer: 256 * 1024 * 1024 });
  const split = { mutator: 0, compile: 0, gc: 0 };
  for (const line of stdout.split('\n')) {
    const match = /^\s*([\d,]+) \([ \d.]+%\)\s+(.*)$/.exec(line);
    if (match === null || match[2]!.includes('PROGRAM TOTALS')) continue;
    const count = Number(match[1]!.replaceAll(',', ''));
    const name = match[2]!;
    if (COMPILE.test(name)) split.compile += count;
    else if (GC.test(name)) split.gc += count;
    else split.mutator += count;
  }
  return split;
}
