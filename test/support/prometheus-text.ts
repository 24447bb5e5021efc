/** One sample line of a Prometheus text exposition. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly samples: readonly Sample[];
  /** `# TYPE` of each metric family. */
  readonly types: ReadonlyMap<string, string>;
  /** `# HELP` of each metric family. */
  readonly helps: ReadonlyMap<string, string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"\s*(,|$)/y;
// Values are what Go's strconv.ParseFloat reads (Prometheus parses with it):
// decimal floats, and NaN and ±Inf in any case (prom-client writes `Nan`).
const VALUE = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf|infinity))$/i;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES = ['_bucket', '_sum', '_count'];

/**
 * Parses the text format 0.0.4 strictly (written from the format's
 * specification, independent of prom-client): any line that is not a
 * comment, HELP, TYPE or well-formed sample throws, as do a TYPE after its
 * samples, a repeated series and a histogram whose buckets are not
 * cumulative or do not end in `+Inf` = `_count`.
 */
export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const helps = new Map<string, string>();
  const seenSeries = new Set<string>();
  const sampled = new Set<string>();
  for (const [index, line] of text.split('\n').entries()) {
    const fail = (why: string) => new Error(`line ${index + 1}: ${why}: ${JSON.stringify(line)}`);
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const [, keyword, name, rest] = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line) ?? [];
      if (keyword === undefined) continue; // a plain comment
      if (!NAME.test(name!)) throw fail('bad metric name');
      if (keyword === 'HELP') {
        if (helps.has(name!)) throw fail('second HELP');
        helps.set(name!, rest ?? '');
      } else {
        if (!TYPES.has(rest ?? '')) throw fail('unknown type');
        if (types.has(name!) || sampled.has(name!)) throw fail('TYPE repeated or after samples');
        types.set(name!, rest!);
      }
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw fail('not a sample');
    const [, name, labelText, valueText] = match;
    if (!VALUE.test(valueText!)) throw fail('bad value');
    const labels = parseLabels(labelText ?? '', fail);
    const series = `${name}{${Object.entries(labels)
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}}`;
    if (seenSeries.has(series)) throw fail('repeated series');
    seenSeries.add(series);
    sampled.add(familyOf(name!, types));
    samples.push({ name: name!, labels, value: parseValue(valueText!) });
  }
  checkHistograms(samples, types);
  return { samples, types, helps };
}

function parseValue(text: string): number {
  if (/^[+-]?inf(inity)?$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  return /^[+-]?nan$/i.test(text) ? Number.NaN : Number(text);
}

function parseLabels(text: string, fail: (why: string) => Error): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const at = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (!match || match.index !== at) throw fail('bad label');
    if (match[1]! in labels) throw fail('repeated label');
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

function familyOf(name: string, types: ReadonlyMap<string, string>): string {
  for (const suffix of SUFFIXES) {
    const base = name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && (types.get(base) === 'histogram' || types.get(base) === 'summary')) return base;
  }
  return name;
}

function checkHistograms(samples: readonly Sample[], types: ReadonlyMap<string, string>): void {
  const groups = new Map<string, { buckets: [number, number][]; count?: number }>();
  for (const sample of samples) {
    const family = familyOf(sample.name, types);
    if (types.get(family) !== 'histogram' || family === sample.name) continue;
    const { le, ...rest } = sample.labels;
    const key = `${family}${JSON.stringify(Object.entries(rest).sort())}`;
    const group = groups.get(key) ?? { buckets: [] };
    groups.set(key, group);
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${key}: bucket without le`);
      group.buckets.push([parseValue(le), sample.value]);
    } else if (sample.name.endsWith('_count')) group.count = sample.value;
  }
  for (const [key, { buckets, count }] of groups) {
    buckets.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < buckets.length; i++) if (buckets[i]![1] < buckets[i - 1]![1]) throw new Error(`${key}: buckets not cumulative`);
    const last = buckets.at(-1);
    if (!last || last[0] !== Infinity || last[1] !== count) throw new Error(`${key}: +Inf bucket missing or not equal to _count`);
  }
}

/** The value of the one sample named `name` whose labels include `labels`; `undefined` when there is none. */
export function valueOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = exposition.samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (matching.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${matching.length} samples`);
  return matching[0]?.value;
}
