import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.js';

class RowError extends Error {}

/** A group commit over a recording fake: doubles each input, fails the whole commit on `failOn`, and records every commit's inputs. */
function recording(options: { maxGroup?: number; failOn?: (input: number) => Error | undefined } = {}) {
  const commits: number[][] = [];
  const group = new GroupCommit<number, number>({
    commit(inputs) {
      commits.push([...inputs]);
      for (const input of inputs) {
        const error = options.failOn?.(input);
        if (error) throw error;
      }
      return inputs.map((input) => input * 2);
    },
    isInputError: (error) => error instanceof RowError,
    maxGroup: options.maxGroup ?? 100,
  });
  return { group, commits };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('group commit', () => {
  it('commits what is submitted in one turn of the event loop together, in order, and the next turn apart', async () => {
    const { group, commits } = recording();
    const first = Promise.all([1, 2, 3].map((input) => group.submit(input)));
    expect(commits).toEqual([]);
    await expect(first).resolves.toEqual([2, 4, 6]);
    await expect(group.submit(4)).resolves.toBe(8);
    expect(commits).toEqual([[1, 2, 3], [4]]);
  });

  it('splits a turn into groups of at most maxGroup, one turn each', async () => {
    const { group, commits } = recording({ maxGroup: 2 });
    const outputs = Promise.all([1, 2, 3, 4, 5].map((input) => group.submit(input)));
    await nextTurn();
    expect(commits).toEqual([[1, 2]]);
    await expect(outputs).resolves.toEqual([2, 4, 6, 8, 10]);
    expect(commits).toEqual([[1, 2], [3, 4], [5]]);
  });

  it("commits each input alone after one input's own error, so only that input fails", async () => {
    const { group, commits } = recording({ failOn: (input) => (input === 2 ? new RowError('row 2 breaks a constraint') : undefined) });
    const outcomes = await Promise.allSettled([1, 2, 3].map((input) => group.submit(input)));
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: new RowError('row 2 breaks a constraint') },
      { status: 'fulfilled', value: 6 },
    ]);
    expect(commits).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it("fails the whole group, without committing each alone, on an error of the database's state", async () => {
    const locked = new Error('database is locked');
    const { group, commits } = recording({ failOn: () => locked });
    const outcomes = await Promise.allSettled([1, 2, 3].map((input) => group.submit(input)));
    expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? outcome.reason : outcome.value))).toEqual([locked, locked, locked]);
    expect(commits).toEqual([[1, 2, 3]]);
  });

  it('commits at once on flush, whatever is waiting for its turn', async () => {
    const { group, commits } = recording({ maxGroup: 2 });
    const outputs = Promise.all([1, 2, 3].map((input) => group.submit(input)));
    group.flush();
    expect(commits).toEqual([[1, 2], [3]]);
    await expect(outputs).resolves.toEqual([2, 4, 6]);
    await nextTurn();
    expect(commits).toHaveLength(2);
  });
});
