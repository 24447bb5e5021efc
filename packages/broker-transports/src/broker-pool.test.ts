import type { BrokerDestination } from '@plant-store/core/adapter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BrokerClient, BrokerConnection } from './broker-connection.js';
import { BrokerPool } from './broker-pool.js';

type Redis = Extract<BrokerDestination, { kind: 'redis' }>;

/** A client whose connections only record what happens to them. */
function fakeClient(connect?: () => Promise<void>) {
  const made: { open: boolean; closed: number }[] = [];
  const client: BrokerClient<Redis> = {
    kind: 'redis',
    async connect() {
      await connect?.();
      const state = { open: true, closed: 0 };
      made.push(state);
      const connection: BrokerConnection<Redis> = {
        get open() {
          return state.open;
        },
        publish: async () => {},
        close: async () => {
          state.open = false;
          state.closed += 1;
        },
      };
      return connection;
    },
  };
  return { client, made };
}

const use = (pool: BrokerPool<Redis>, host = 'a') => pool.with(`redis://${host}`, 1_000, async () => 'used');

afterEach(() => {
  vi.useRealTimers();
});

describe('BrokerPool', () => {
  it('shares one connection per broker and closes it once unused for idleMs', async () => {
    vi.useFakeTimers();
    const { client, made } = fakeClient();
    const pool = new BrokerPool(client, 1_000);
    await Promise.all([use(pool), use(pool), use(pool, 'b')]);
    expect(made).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(600);
    await use(pool); // used again: its idle time starts over
    await vi.advanceTimersByTimeAsync(600);
    expect(made.map((state) => state.closed)).toEqual([0, 1]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(made.map((state) => state.closed)).toEqual([1, 1]);
    await use(pool);
    expect(made).toHaveLength(3);
    await pool.close();
  });

  it('drops a connection that went away, and connects again on the next use', async () => {
    const { client, made } = fakeClient();
    const pool = new BrokerPool(client, 60_000);
    await use(pool);
    made[0]!.open = false;
    await expect(use(pool)).rejects.toThrow('the connection to the broker was closed');
    await expect(use(pool)).resolves.toBe('used');
    expect(made).toHaveLength(2);
    await pool.close();
  });

  it('forgets a failed connect, so the next use tries again', async () => {
    let fail = true;
    const { client, made } = fakeClient(async () => {
      if (fail) throw new Error('connect ECONNREFUSED');
    });
    const pool = new BrokerPool(client, 60_000);
    await expect(use(pool)).rejects.toThrow('connect ECONNREFUSED');
    fail = false;
    await expect(use(pool)).resolves.toBe('used');
    expect(made).toHaveLength(1);
    await pool.close();
  });

  it('closes without waiting for a connect that hangs, and closes that connection when it is made', async () => {
    let finish = () => {};
    const { client, made } = fakeClient(() => new Promise<void>((resolve) => (finish = resolve)));
    const pool = new BrokerPool(client, 60_000);
    const using = use(pool);
    await pool.close();
    finish();
    await using;
    await vi.waitFor(() => expect(made[0]?.closed).toBe(1));
    await expect(use(pool)).rejects.toThrow('the transport is closed');
  });
});
