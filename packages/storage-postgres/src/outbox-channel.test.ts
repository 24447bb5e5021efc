import { describe, expect, it } from 'vitest';
import { announcer } from './outbox-channel.js';

describe('announcer', () => {
  it('sends at once when idle, and once more for every burst of calls made while one is in flight', async () => {
    const pending: (() => void)[] = [];
    const announce = announcer(() => new Promise<void>((resolve) => pending.push(resolve)));
    announce();
    expect(pending).toHaveLength(1);
    announce();
    announce();
    announce();
    expect(pending).toHaveLength(1);
    pending[0]!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending).toHaveLength(2);
    pending[1]!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending).toHaveLength(2);
    announce();
    expect(pending).toHaveLength(3);
  });

  it('goes on after a failed send', async () => {
    let calls = 0;
    const announce = announcer(async () => {
      calls++;
      throw new Error('connection lost');
    });
    announce();
    await new Promise((resolve) => setImmediate(resolve));
    announce();
    expect(calls).toBe(2);
  });
});
