import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { access, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { functionCosts } from './callgrind-functions.js';

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
  /** Writes what was counted since `count()` and reads it back, split by kind of work and by function; then kills the process. */
  finish(): Promise<CountedWindow>;
}

/**
 * What a window counted: its instructions split by kind, and each
 * function's own. JIT code is named when the process ran with
 * `node --perf-basic-prof` (see callgrind-functions.ts), else it keeps
 * its addresses.
 */
export interface CountedWindow {
  readonly split: InstructionSplit;
  readonly functions: Map<string, number>;
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
      // Where V8 writes a process's perf map, whatever TMPDIR says; removed once read.
      const perfMap = `/tmp/perf-${pid}.map`;
      const functions = await functionCosts(await dumpOf(dir, pid), perfMap);
      await rm(perfMap, { force: true });
      return { split: splitOf(functions), functions };
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

// Native functions by the part of V8 they belong to; the JIT's own code (a perf map's `JS:` names, or bare addresses) is the mutator.
// V8's JavaScript parsers by their full names: Node's HTTP parser (`node::…::Parser`) and V8's JSON parser
// (`JsonParser`, JSON.parse) are the request's own work.
const COMPILE = /compiler::|maglev|Maglev|interpreter::|v8::internal::(?:Pre)?Parser(?:Base)?\b|Compile|BytecodeGenerator|baseline::|Zone/;
const GC = /Scaveng|MarkCompact|Marking|Sweep|Evacuat|Heap::|GCTracer|Worklist|RememberedSet|SlotSet|MemoryChunk|ConcurrentMark|Visitor|Visit/;

/** Functions' instructions summed by kind; JIT code (named from a perf map or by its address) is always the mutator. */
function splitOf(functions: Map<string, number>): InstructionSplit {
  const split = { mutator: 0, compile: 0, gc: 0 };
  for (const [name, count] of functions) {
    const native = !name.startsWith('JS:') && !name.startsWith('0x') && name !== 'JIT code';
    if (native && COMPILE.test(name)) split.compile += count;
    else if (native && GC.test(name)) split.gc += count;
    else split.mutator += count;
  }
  return split;
}
