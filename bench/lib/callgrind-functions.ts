import { readFile } from 'node:fs/promises';

// Instructions per function of a callgrind dump, with V8's optimized and
// baseline code named. Callgrind knows native symbols (V8's builtins, its
// C++, Node's, libc's) but sees JIT code as bare addresses; a process
// started with `node --perf-basic-prof` writes where each piece of JIT code
// lies and what it is (/tmp/perf-PID.map), which names them. A function
// V8 inlined counts in the one it was inlined into, so a function inlined
// in one run and not in another shows as two rows of opposite sign.

/** One piece of JIT code from a perf map: where it starts, its size, what it is, and its place in the file. */
interface CodeRange {
  readonly start: number;
  readonly end: number;
  readonly name: string;
  readonly order: number;
}

/**
 * JIT code by address, from a perf map's `START SIZE NAME` lines (hex).
 * V8 reuses the space of code it collected, so a later line for an
 * address replaces an earlier one.
 */
export class PerfMap {
  readonly #ranges: CodeRange[];

  constructor(text: string) {
    const ranges: CodeRange[] = [];
    for (const line of text.split('\n')) {
      const match = /^([0-9a-f]+) ([0-9a-f]+) (.+)$/i.exec(line);
      if (match === null) continue;
      const start = Number.parseInt(match[1]!, 16);
      ranges.push({ start, end: start + Number.parseInt(match[2]!, 16), name: functionName(match[3]!), order: ranges.length });
    }
    this.#ranges = ranges.sort((a, b) => a.start - b.start);
  }

  /** The name of the code holding `address`: the last one the map gave for it, or `undefined`. */
  nameAt(address: number): string | undefined {
    const ranges = this.#ranges;
    // The last range starting at or before the address…
    let low = 0;
    let high = ranges.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ranges[middle]!.start <= address) low = middle + 1;
      else high = middle;
    }
    // …and the ranges before it that still reach it (pieces of code are small: a few back is plenty), newest first.
    let found: CodeRange | undefined;
    for (let index = low - 1; index >= 0 && index >= low - 64; index--) {
      const range = ranges[index]!;
      if (range.end > address && (found === undefined || range.order > found.order)) found = range;
    }
    return found?.name;
  }
}

/**
 * A perf map's name as one row: V8's tier marker (`*` optimized, `^`
 * baseline, `~` interpreted) dropped, so a function counts as one whatever
 * tier it ran in, and a file URL cut to its file name.
 */
function functionName(name: string): string {
  return name.replace(/^JS:[*^~+]?/, 'JS:').replace(/file:\/\/\S*\//, '');
}

/**
 * Each function's own instructions (not those of what it calls) in a
 * callgrind dump (`positions: line`, one event), by name: native ones by
 * their symbol, JIT code by `map` when given (an address without a name
 * in it counts as `JIT code`), else by its address.
 */
export function selfCosts(dump: string, map: PerfMap | undefined): Map<string, number> {
  const names = new Map<string, string>();
  const costs = new Map<string, number>();
  let current = '';
  // The line after `calls=` holds the call's inclusive cost, which is the callee's, not this function's.
  let callCost = false;
  for (const line of dump.split('\n')) {
    if (line.startsWith('fn=')) {
      current = compressedName(line.slice(3), names, map);
      callCost = false;
    } else if (line.startsWith('cfn=')) {
      compressedName(line.slice(4), names, map);
    } else if (line.startsWith('calls=')) {
      callCost = true;
    } else if (/^[\d+\-*]/.test(line)) {
      const cost = Number(line.split(' ')[1] ?? 0);
      if (callCost) callCost = false;
      else costs.set(current, (costs.get(current) ?? 0) + cost);
    }
  }
  return costs;
}

/** A function's name from `(id) name` (first use) or `(id)` (after), as callgrind compresses them. */
function compressedName(text: string, names: Map<string, string>, map: PerfMap | undefined): string {
  const match = /^\((\d+)\)(?: (.*))?$/.exec(text.trim());
  if (match === null) return text.trim();
  const [, id, name] = match;
  if (name !== undefined) names.set(id!, resolvedName(name, map));
  return names.get(id!) ?? `(${id})`;
}

/** A callgrind function name, JIT code's named from the map: callgrind calls code without a symbol by its address (and a recursive cycle's with `'N`). */
function resolvedName(name: string, map: PerfMap | undefined): string {
  const address = /^0x([0-9a-f]+)(?:'\d+)?$/i.exec(name);
  if (address === null) return name.replace(/'\d+$/, '');
  if (map === undefined) return name;
  return map.nameAt(Number.parseInt(address[1]!, 16)) ?? 'JIT code';
}

/** The self costs of a dump and its process's perf map (missing map: addresses stay). */
export async function functionCosts(dumpPath: string, perfMapPath: string): Promise<Map<string, number>> {
  const [dump, mapText] = await Promise.all([readFile(dumpPath, 'utf8'), readFile(perfMapPath, 'utf8').catch(() => undefined)]);
  return selfCosts(dump, mapText === undefined ? undefined : new PerfMap(mapText));
}

/** One function's own instructions per request in two counts (two commits, say). */
export interface FunctionDifference {
  readonly name: string;
  readonly a: number;
  readonly b: number;
}

/** The `count` functions whose instructions per request differ most between `a` and `b`, largest difference first. */
export function largestDifferences(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>, count: number): FunctionDifference[] {
  const names = new Set([...a.keys(), ...b.keys()]);
  const rows = [...names].map((name) => ({ name, a: a.get(name) ?? 0, b: b.get(name) ?? 0 }));
  return rows.sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a)).slice(0, count);
}
