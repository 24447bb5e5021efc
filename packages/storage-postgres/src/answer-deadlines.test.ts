import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { AnswerDeadlines } from './answer-deadlines.js';

describe('AnswerDeadlines', () => {
  it('fails a call that gets no answer once its deadline has passed, and only then', async () => {
    const deadlines = new AnswerDeadlines(80);
    const failures: Error[] = [];
    const started = Date.now();
    deadlines.watch((error) => failures.push(error));
    await sleep(40);
    expect(failures).toEqual([]);
    await vi.waitFor(() => expect(failures).not.toHaveLength(0), { timeout: 2_000, interval: 5 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(80);
    expect(failures.map((error) => error.message)).toEqual(['no answer from the database within 80 ms']);
  });

  it('never fails a call that ended in time, and fails each late call once', async () => {
    const deadlines = new AnswerDeadlines(40);
    const failed: string[] = [];
    const answered = deadlines.watch(() => failed.push('answered'));
    deadlines.watch(() => failed.push('late'));
    answered.done();
    answered.done();
    await sleep(200);
    expect(failed).toEqual(['late']);
  });

  it('keeps failing late calls after an idle spell, when its sweep had stopped', async () => {
    const deadlines = new AnswerDeadlines(40);
    deadlines.watch(() => {}).done();
    await sleep(100); // a sweep finds nothing waiting and stops
    const failed: string[] = [];
    deadlines.watch(() => failed.push('late'));
    await sleep(200);
    expect(failed).toEqual(['late']);
  });
});
