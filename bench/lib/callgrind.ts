import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { functionCosts } from './callgrind-functions.js';

const run = promisify(execFile);

/** Instructions counted in a window, split by what ran them. */
export interface InstructionSplit {
  /** JavaScript and the native code it calls (Node's HTTP parser, SQLite, libc): the work itself. */
  readonly mutator: number;
  /** V8's compilers and parsers: how much of their work lands in a window varies from run to run. */
  readonly compile: number;
  /** The garbage collector: when a collection falls in a window varies too. */
  readonly gc: number;
}

/** What one window counted: the split, and each function's own instructions (JIT code named when the process writes a perf map). */
export interface CountedWindow {
  readonly split: InstructionSplit;
  readonly functions: Map<string, number>;
}

/**
 * A node process under valgrind's callgrind that counts nothing until asked:
 * start-up, seeding and warm-up run uncounted, and each `count` measures
 * exactly the window of work the caller hands it.
 */
export interface CountedProcess {
  /** Base URL from the ready line. */
  readonly url: string;
  /**
   * Counts what the whole process (every thread) does while `work` runs:
   * instrumentation on, `prime`, counters zeroed, the work, a dump,
   * instrumentation off. Valgrind translates all code anew when
   * instrumentation turns on, which stalls the process for seconds:
   * `prime` (the same kind of requests) takes that stall out of the window.
   */
  count(prime: () => Promise<void>, work: () => Promise<void>): Promise<CountedWindow>;
  /** Kills the process (nothing after the last window is wanted) and removes its perf map. */
  stop(): Promise<void>;
}

const READY_URL = /https?:\/\/[\w.-]+:\d+/;

/**
 * Starts `node args` under callgrind with instrumentation off. V8's JIT
 * code is counted like any other (valgrind translates it as it appears);
 * `--fair-sched` lets V8's compiler threads run as they would, so a warm-up
 * ends with the hot code optimized. `dir` receives the dumps.
 */
export async function startCounted(args: readonly string[], env: NodeJS.ProcessEnv, dir: string, timeoutMs = 300_000): Promise<CountedProcess> {
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', '--instr-atstart=no', '--fair-sched=yes', `--callgrind-out-file=${join(dir, 'callgrind.%p')}`, process.execPath, ...args],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = once(child, 'exit');
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr = (stderr + text).slice(-8192);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen: string | undefined = '';
    const timer = setTimeout(() => reject(new Error(`no ready line under valgrind within ${timeoutMs} ms\n${stderr}`)), timeoutMs);
    exited.then(() => reject(new Error(`the process exited before its ready line\n${stderr}${seen?.slice(-500) ?? ''}`)));
    // The request log keeps flowing after the ready line and is drained, so a logging server never blocks on a full pipe.
    child.stdout.on('data', (chunk: Buffer) => {
      if (seen === undefined) return;
      seen += chunk.toString('utf8');
      const found = READY_URL.exec(seen)?.[0];
      if (found === undefined) return;
      seen = undefined;
      clearTimeout(timer);
      resolve(found);
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  const pid = String(child.pid);
  let dumps = 0;
  return {
    url,
    async count(prime, work) {
      await run('callgrind_control', ['--instr=on', pid]);
      await prime();
      await run('callgrind_control', ['--zero', pid]);
      await work();
      await run('callgrind_control', ['--dump', pid]);
      await run('callgrind_control', ['--instr=off', pid]);
      dumps++;
      const functions = await functionCosts(await dumpOf(dir, pid, dumps), `/tmp/perf-${pid}.map`);
      return { split: splitOf(functions), functions };
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      // Where V8 writes a process's perf map (with --perf-basic-prof), whatever TMPDIR says.
      await rm(`/tmp/perf-${pid}.map`, { force: true });
    },
  };
}

/** The `n`th dump `callgrind_control --dump` wrote (each one zeroes the counters). */
async function dumpOf(dir: string, pid: string, n: number): Promise<string> {
  const dump = join(dir, `callgrind.${pid}.${n}`);
  await access(dump).catch(() => {
    throw new Error(`callgrind wrote no dump ${n} for process ${pid} in ${dir}`);
  });
  return dump;
}

// Native functions by the part of V8 they belong to; the JIT's own code (a perf map's `JS:` names, or bare addresses) is the mutator.
// V8's JavaScript parsers by their full names: Node's HTTP parser (`node::…::Parser`) and V8's JSON parser
// (`JsonParser`, JSON.parse) are the request's own work.
const COMPILE = /compiler::|maglev|Maglev|interpreter::|v8::internal::(?:Pre)?Parser(?:Base)?\b|Compile|BytecodeGenerator|baseline::|Zone/;
const GC = /Scaveng|MarkCompact|Marking|Sweep|Evacuat|Heap::|GCTracer|Worklist|RememberedSet|SlotSet|MemoryChunk|ConcurrentMark|Visitor|Visit/;

/** Functions' instructions summed by kind; JIT code (named from a perf map or by its address) is always the mutator. */
export function splitOf(functions: ReadonlyMap<string, number>): InstructionSplit {
  const split = { mutator: 0, compile: 0, gc: 0 };
  for (const [name, count] of functions) {
    const native = !name.startsWith('JS:') && !name.startsWith('0x') && name !== 'JIT code';
    if (native && COMPILE.test(name)) split.compile += count;
    else if (native && GC.test(name)) split.gc += count;
    else split.mutator += count;
  }
  return split;
}
