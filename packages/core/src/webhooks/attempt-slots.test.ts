import { describe, expect, it } from 'vitest';
import { AttemptSlots, SLOW_ENDPOINT_CONCURRENCY } from './attempt-slots.js';

/** Starts an attempt that runs until the returned function is called (as an answered request). */
function hold(slots: AttemptSlots, endpointId: string, owner: string): () => void {
  let finish!: () => void;
  slots.run(
    `msg_${Math.random()}`,
    endpointId,
    owner,
    () => new Promise<void>((resolve) => (finish = resolve)),
    () => {},
  );
  return () => finish();
}

const caps = { concurrency: 16, perEndpoint: 4, perOwner: 6, slowAfterMs: 60_000 };

describe('AttemptSlots', () => {
  it('keeps one owner below its cap however many endpoints it has', () => {
    const slots = new AttemptSlots(caps);
    for (let n = 0; n < 6; n++) hold(slots, `ep_${n}`, 'tenant:hog');
    expect(slots.hasRoomFor('ep_new', 'tenant:hog')).toBe(false);
    expect(slots.hasRoomFor('ep_other', 'tenant:other')).toBe(true);
    // Every endpoint of the owner seen meanwhile is passed over by claims.
    slots.noteOwner('ep_unseen', 'tenant:hog');
    expect(slots.fullEndpoints()).toEqual(expect.arrayContaining(['ep_0', 'ep_5', 'ep_unseen']));
  });

  it('cuts a slow endpoint to a trickle, and gives it its cap back once it answers promptly', () => {
    const slots = new AttemptSlots(caps);
    slots.observe('ep_a', 60_000);
    for (let n = 0; n < SLOW_ENDPOINT_CONCURRENCY; n++) hold(slots, 'ep_a', 'tenant:a');
    expect(slots.hasRoomFor('ep_a', 'tenant:a')).toBe(false);
    expect(slots.fullEndpoints()).toContain('ep_a');
    slots.observe('ep_a', 5);
    expect(slots.hasRoomFor('ep_a', 'tenant:a')).toBe(true);
  });

  it('leaves half the slots to endpoints known to answer, however many others hang', () => {
    const slots = new AttemptSlots({ ...caps, perOwner: 16 });
    slots.observe('ep_fast', 5);
    // Endpoints never tried (or slow) take at most half.
    for (let n = 0; n < 8; n++) hold(slots, `ep_${n}`, `tenant:${n}`);
    expect(slots.hasRoomFor('ep_8', 'tenant:8')).toBe(false);
    expect(slots.hasRoomFor('ep_fast', 'tenant:fast')).toBe(true);
  });

  it('makes an endpoint slow while its attempt is still running past the mark', async () => {
    const slots = new AttemptSlots({ ...caps, slowAfterMs: 5 });
    slots.observe('ep_a', 1);
    const finish = hold(slots, 'ep_a', 'tenant:a');
    expect(slots.slowEndpoints()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(slots.slowEndpoints()).toEqual(['ep_a']);
    finish();
  });
});
