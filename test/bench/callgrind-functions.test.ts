import { describe, expect, it } from 'vitest';
import { largestDifferences, PerfMap, selfCosts } from '../../bench/lib/callgrind-functions.js';

// A callgrind dump as valgrind writes it: names compressed to ids after their first use, a call's inclusive
// cost on the line after `calls=`, JIT code (no symbol) named by its address, a recursive cycle's with 'N.
const DUMP = `# callgrind format
version: 1
positions: line
events: Ir
summary: 1000

ob=(1) /usr/bin/node
fl=(1) ???
fn=(1) Builtins_KeyedLoadIC_Megamorphic
0 40

fn=(2) 0x0000000000001010
0 100
cfn=(1)
calls=2 0
0 80
+1 5

fn=(3) 0x0000000000002004'2
0 7

fn=(4) 0x0000000000009000
0 3

fn=(2)
0 11
`;

// Two pieces of code at 0x1000 (the second replaces the first, as after V8 collected it), one at 0x2000.
const MAP = `1000 40 JS:~startSpan file:///work/packages/server/dist/bundle/light-tracer.js:369:12
2000 20 JS:*end file:///work/packages/server/dist/bundle/light-tracer.js:342:6
1000 30 JS:*startSpan file:///work/packages/server/dist/bundle/light-tracer.js:369:12
`;

describe('callgrind function costs', () => {
  it('counts each function’s own instructions, not its calls’, with JIT code named from the perf map', () => {
    const costs = selfCosts(DUMP, new PerfMap(MAP));
    expect(Object.fromEntries(costs)).toEqual({
      Builtins_KeyedLoadIC_Megamorphic: 40,
      // 100 + 5 + 11: the 80 of the call belongs to the callee; tier marker and folder dropped.
      'JS:startSpan light-tracer.js:369:12': 116,
      'JS:end light-tracer.js:342:6': 7,
      // An address the map does not cover.
      'JIT code': 3,
    });
  });

  it('keeps addresses as they are without a map', () => {
    expect(selfCosts(DUMP, undefined).get('0x0000000000001010')).toBe(116);
  });

  it('names an address by the code the map gave for it last', () => {
    const map = new PerfMap(MAP);
    expect(map.nameAt(0x1000)).toBe('JS:startSpan light-tracer.js:369:12');
    // Past the replacement's 0x30 bytes but inside the first piece's 0x40: the older code is the only one there.
    expect(map.nameAt(0x1035)).toBe('JS:startSpan light-tracer.js:369:12');
    expect(map.nameAt(0x2020)).toBeUndefined();
    expect(map.nameAt(0xfff)).toBeUndefined();
  });

  it('lists the largest differences first, either way', () => {
    const a = new Map([
      ['a', 10],
      ['b', 100],
      ['c', 5],
    ]);
    const b = new Map([
      ['a', 60],
      ['b', 20],
      ['d', 1],
    ]);
    expect(largestDifferences(a, b, 3)).toEqual([
      { name: 'b', a: 100, b: 20 },
      { name: 'a', a: 10, b: 60 },
      { name: 'c', a: 5, b: 0 },
    ]);
  });
});
