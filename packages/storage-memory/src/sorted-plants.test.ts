import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedPlants } from './sorted-plants.js';

const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
// Small ids collide often (exercising duplicates and removals); extremes check signed order.
const id = fc.oneof(fc.bigInt({ min: -20n, max: 20n }), int64);
const operation = fc.oneof(fc.record({ insert: id }), fc.record({ remove: id }));

describe('SortedPlants', () => {
  it('behaves like a sorted set of ids under any sequence of inserts and removals', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 200 }), fc.array(id, { maxLength: 20 }), (operations, probes) => {
        const plants = new SortedPlants();
        const model = new Map<bigint, string>();
        operations.forEach((op, index) => {
          if ('insert' in op) {
            const existing = plants.insert({ id: op.insert, name: `n${index}` });
            expect(existing?.name).toBe(model.get(op.insert));
            if (!model.has(op.insert)) model.set(op.insert, `n${index}`);
          } else {
            expect(plants.remove(op.remove)).toBe(model.delete(op.remove));
          }
        });
        const sorted = [...model.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(Array.from({ length: plants.size }, (_, i) => plants.at(i)!.id)).toEqual(sorted);
        for (const probe of probes) {
          expect(plants.get(probe)?.name).toBe(model.get(probe));
          expect(plants.lowerBound(probe)).toBe(sorted.filter((value) => value < probe).length);
          expect(plants.upperBound(probe)).toBe(sorted.filter((value) => value <= probe).length);
        }
      }),
      { numRuns: 200 },
    );
  });
});
