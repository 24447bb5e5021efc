import { describe, expect, it } from 'vitest';
import { newMessageId } from './message-id.js';

describe('newMessageId', () => {
  it('gives msg_ and the hex of a version 4 UUID, never the same twice (across many refills of its random pool)', () => {
    const ids = Array.from({ length: 5000 }, () => newMessageId());
    for (const id of ids) expect(id).toMatch(/^msg_[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
