import { describe, expect, it } from 'vitest';
import { PRUNE_LOOP_SHARE, prunePacing } from './prune-pacing.js';

describe('prunePacing', () => {
  const paced = (deadline: number) => {
    const clock = { ms: 0 };
    const pauses: number[] = [];
    const stop = new AbortController();
    const between = prunePacing({
      now: () => clock.ms,
      deadline,
      signal: stop.signal,
      sleep: async (ms, signal) => {
        expect(signal).toBe(stop.signal);
        pauses.push(ms);
        clock.ms += ms;
      },
    });
    return { between, pauses, clock, stop };
  };

  it('pauses so the run takes PRUNE_LOOP_SHARE (2 %) of the event loop: 49 times what the batch held it', async () => {
    expect(PRUNE_LOOP_SHARE).toBe(0.02);
    const { between, pauses } = paced(10_000);
    await between(1);
    await between(5);
    expect(pauses).toEqual([49, 245]);
  });

  it('never pauses past the deadline, and only yields from then on (a run that is behind goes at full speed)', async () => {
    const { between, pauses, clock } = paced(100);
    await between(1);
    await between(2); // 98 would end at 147: cut to the 51 left
    expect(pauses).toEqual([49, 51]);
    expect(clock.ms).toBe(100);
    await between(2);
    await between(0);
    expect(pauses).toEqual([49, 51]);
  });

  it('only yields after a batch that held the loop for next to nothing (an asynchronous driver), or once stopped', async () => {
    const { between, pauses, stop } = paced(10_000);
    await between(0.01);
    stop.abort();
    await between(10);
    expect(pauses).toEqual([]);
  });

  it('hands the event loop back even when it does not pause', async () => {
    const { between } = paced(0);
    const order: string[] = [];
    setImmediate(() => order.push('request'));
    await between(1);
    order.push('next batch');
    expect(order).toEqual(['request', 'next batch']);
  });
});
