// Summarises a V8 .cpuprofile (from `pnpm bench --cpu-prof DIR`): self time
// by function and by package, and inclusive time of the heaviest frames.
// Run: node --import tsx bench/profile-summary.ts FILE.cpuprofile [top]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Which package or layer a frame belongs to, from its script URL. */
function layerOf(url: string, name: string): string {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(idle)') return 'idle';
  if (name === '(program)') return 'V8/native (program)';
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /packages\/([^/]+)\//.exec(url);
  if (own) return `@plant-store/${own[1]}`;
  if (url.startsWith('node:')) return `node (${url.slice(5).split('/')[0]})`;
  return url === '' ? 'native' : url;
}

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile [top]\n');
  process.exit(2);
}
const top = Number(process.argv[3] ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
// Self time per node from samples × their time deltas (more exact than hitCount × mean interval).
const selfUs = new Map<number, number>();
profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
const totalUs = profile.endTime - profile.startTime;
const idleUs = profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').reduce((sum, node) => sum + (selfUs.get(node.id) ?? 0), 0);
const busyUs = totalUs - idleUs;

const shortUrl = (url: string) => url.replace(/^.*node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '').replace(/^.*\/packages\//, '').replace(/^file:\/\//, '');
const label = (node: ProfileNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${shortUrl(node.callFrame.url)}${node.callFrame.url ? `:${node.callFrame.lineNumber + 1}` : ''}`;

const selfByFunction = new Map<string, number>();
const selfByLayer = new Map<string, number>();
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (!us) continue;
  selfByFunction.set(label(node), (selfByFunction.get(label(node)) ?? 0) + us);
  const layer = layerOf(node.callFrame.url, node.callFrame.functionName);
  selfByLayer.set(layer, (selfByLayer.get(layer) ?? 0) + us);
}

// Inclusive time per function label (counted once per stack even when recursive).
const inclusive = new Map<string, number>();
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
for (const [id, us] of selfUs) {
  const seen = new Set<string>();
  for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
    const name = label(byId.get(current)!);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + us);
  }
}

const pct = (us: number) => `${((us / busyUs) * 100).toFixed(1).padStart(5)} %`;
const print = (title: string, entries: Map<string, number>, count: number) => {
  process.stdout.write(`\n${title}\n`);
  for (const [name, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    process.stdout.write(`${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}\n`);
  }
};
process.stdout.write(`profile ${file}: ${(totalUs / 1e6).toFixed(1)} s, busy ${(busyUs / 1e6).toFixed(1)} s (percentages are of busy time)\n`);
print('self time by package/layer', selfByLayer, 20);
print('self time by function', selfByFunction, top);
print('inclusive time by function', new Map([...inclusive].filter(([name]) => !name.startsWith('('))), top);
