// Micro-benchmark of the request-body JSON codec: CPU time per parse (user +
// system, so other processes on a busy machine disturb it less than wall
// time), median of several rounds, for the codec in the tree and the one it
// replaced (kept here, verbatim, as the yardstick).
//
//   node --import tsx bench/json-codec-micro.ts [rounds]
import { createRequire } from 'node:module';
import { int64FromDecimal } from '../packages/core/src/domain/int64.js';
import { parseJson } from '../packages/core/src/json/json-codec.js';

// lossless-json is core's dependency, not the root's: resolved from there.
const { parse } = createRequire(new URL('../packages/core/package.json', import.meta.url))('lossless-json') as {
  parse: (text: string, reviver?: null, parseNumber?: (literal: string) => unknown) => unknown;
};
const NEEDS_LOSSLESS = /\d[.eE]|\d{16}/;
function parseExactNumber(text: string): unknown {
  const integer = int64FromDecimal(text);
  if (integer === undefined) return parse(text);
  return integer >= BigInt(Number.MIN_SAFE_INTEGER) && integer <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(integer) : integer;
}
function previousParseJson(text: string): unknown {
  if (!NEEDS_LOSSLESS.test(text)) return JSON.parse(text);
  return parse(text, null, parseExactNumber);
}

const plants = Array.from({ length: 20 }, (_, i) => `{"id":${1000 + i},"name":"Plant ${i}","tag":"shade"}`);
const BODIES: Record<string, string> = {
  'small plant': '{"id":123,"name":"Fern","tag":"x"}',
  'plant, int64 id': '{"id":9223372036854775807,"name":"Fern"}',
  'endpoint, digits': '{"url":"https://hooks.example.com/v7.0/plants","eventTypes":["plant.created","plant.deleted"],"description":"release 2.0"}',
  'endpoint, plain': '{"url":"https://example.com/hooks","eventTypes":["plant.created"]}',
  'nested, plain': '{"a":{"id":123,"name":"Fern"},"b":[{"tag":"x"}]}',
  '20 plants (1 KiB)': `[${plants.join(',')}]`,
};

function cpuNsPerOp(fn: (text: string) => unknown, text: string, iterations: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < iterations; i += 1) fn(text);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / iterations;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rounds = Number(process.argv[2] ?? 7);
for (const [name, text] of Object.entries(BODIES)) {
  const iterations = Math.max(20_000, Math.floor(4_000_000 / text.length));
  for (let i = 0; i < 3; i += 1) (cpuNsPerOp(previousParseJson, text, iterations), cpuNsPerOp(parseJson, text, iterations)); // warm up
  const before: number[] = [];
  const after: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    before.push(cpuNsPerOp(previousParseJson, text, iterations));
    after.push(cpuNsPerOp(parseJson, text, iterations));
  }
  console.log(`${name.padEnd(20)} before ${median(before).toFixed(0).padStart(6)} ns/op   after ${median(after).toFixed(0).padStart(6)} ns/op`);
}
