import { describe, expect, it, vi } from 'vitest';
import { CoalescingBatch } from './coalescing-batch.js';

interface Call {
  readonly id: string;
  readonly value: number;
}

/** A batch whose runs are held until the test releases them, recording what each run was given. */
function heldBatch(maxSize = 10) {
  const runs: Call[][] = [];
  const releases: ((outcome: Error | undefined) => void)[] = [];
  const batch = new CoalescingBatch<Call, number>({
    keyOf: (call) => call.id,
    maxSize,
    run: (inputs) => {
      runs.push([...inputs]);
      return new Promise((resolve, reject) => {
        releases.push((outcome) => (outcome ? reject(outcome) : resolve(inputs.map((call) => call.value * 10))));
      });
    },
  });
  const release = async (index: number, outcome?: Error) => {
    await vi.waitFor(() => expect(releases.length).toBeGreaterThan(index));
    releases[index]!(outcome);
  };
  return { batch, runs, release };
}

describe('CoalescingBatch', () => {
  it('runs the calls of one turn as one batch and gives each call its own result', async () => {
    const { batch, runs, release } = heldBatch();
    const results = Promise.all([1, 2, 3].map((value) => batch.submit({ id: `d${value}`, value })));
    await release(0);
    expect(await results).toEqual([10, 20, 30]);
    expect(runs.map((run) => run.map((call) => call.value))).toEqual([[1, 2, 3]]);
  });

  it('sends the calls made while a batch is in flight together, as the next batch', async () => {
    const { batch, runs, release } = heldBatch();
    const first = batch.submit({ id: 'a', value: 1 });
    await vi.waitFor(() => expect(runs).toHaveLength(1));
    const later = Promise.all([batch.submit({ id: 'b', value: 2 }), batch.submit({ id: 'c', value: 3 })]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toHaveLength(1); // nothing starts while one is in flight
    await release(0);
    await release(1);
    expect([await first, ...(await later)]).toEqual([10, 20, 30]);
    expect(runs.map((run) => run.map((call) => call.value))).toEqual([[1], [2, 3]]);
  });

  it('never puts two calls with the same key in one batch, and keeps the order of the rest', async () => {
    const { batch, runs, release } = heldBatch();
    const results = Promise.all([batch.submit({ id: 'x', value: 1 }), batch.submit({ id: 'x', value: 2 }), batch.submit({ id: 'y', value: 3 })]);
    await release(0);
    await release(1);
    expect(await results).toEqual([10, 20, 30]);
    expect(runs.map((run) => run.map((call) => call.value))).toEqual([[1, 3], [2]]);
  });

  it('splits more calls than the largest batch over several runs', async () => {
    const { batch, runs, release } = heldBatch(2);
    const results = Promise.all([1, 2, 3, 4, 5].map((value) => batch.submit({ id: `d${value}`, value })));
    for (let index = 0; index < 3; index++) await release(index);
    expect(await results).toEqual([10, 20, 30, 40, 50]);
    expect(runs.map((run) => run.length)).toEqual([2, 2, 1]);
  });

  it('runs the calls of a failed batch again one by one, and still runs the calls waiting behind them', async () => {
    const { batch, runs, release } = heldBatch();
    const failing = [batch.submit({ id: 'a', value: 1 }), batch.submit({ id: 'b', value: 2 })];
    await vi.waitFor(() => expect(runs).toHaveLength(1));
    const behind = batch.submit({ id: 'c', value: 3 });
    const failure = new Error('connection lost');
    await release(0, failure);
    await release(1, failure);
    await release(2, failure);
    for (const call of failing) await expect(call).rejects.toBe(failure);
    expect(runs.slice(0, 3).map((run) => run.map((call) => call.value))).toEqual([[1, 2], [1], [2]]);
    await release(3);
    expect(await behind).toBe(30);
  });

  it('fails only the call whose input the run refuses, not the others that shared its batch', async () => {
    const refused = new Error('invalid byte sequence for encoding "UTF8": 0x00');
    const batch = new CoalescingBatch<Call, number>({
      keyOf: (call) => call.id,
      maxSize: 10,
      run: async (inputs) => {
        if (inputs.some((call) => call.value === 2)) throw refused;
        return inputs.map((call) => call.value * 10);
      },
    });
    const [a, b, c] = [1, 2, 3].map((value) => batch.submit({ id: `d${value}`, value }));
    await expect(a).resolves.toBe(10);
    await expect(b).rejects.toBe(refused);
    await expect(c).resolves.toBe(30);
  });

  it("rejects every call of a batch whose failure is no input's, without running them again", async () => {
    const away = new Error('connection terminated');
    let runs = 0;
    const batch = new CoalescingBatch<Call, number>({
      keyOf: (call) => call.id,
      maxSize: 10,
      isolate: (error) => error !== away,
      run: async () => {
        runs++;
        throw away;
      },
    });
    const calls = [batch.submit({ id: 'a', value: 1 }), batch.submit({ id: 'b', value: 2 })];
    for (const call of calls) await expect(call).rejects.toBe(away);
    expect(runs).toBe(1);
  });

  it('rejects the calls of a batch that gives back the wrong number of results', async () => {
    const batch = new CoalescingBatch<Call, number>({ keyOf: (call) => call.id, maxSize: 10, run: async () => [] });
    const calls = [batch.submit({ id: 'a', value: 1 }), batch.submit({ id: 'b', value: 2 })];
    for (const call of calls) await expect(call).rejects.toThrow('a batch of 1 gave 0 results');
  });
});
