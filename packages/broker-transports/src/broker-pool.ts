import type { BrokerDestination } from '@plant-store/core/adapter';
import type { BrokerClient, BrokerConnection } from './broker-connection.js';

interface PoolEntry<D extends BrokerDestination> {
  readonly connecting: Promise<BrokerConnection<D>>;
  /** Set once connected. */
  connection?: BrokerConnection<D>;
  inFlight: number;
  lastUsed: number;
}

/** Connections by their `connect` argument, opened on first use, closed when idle for `idleMs`, when gone, and on `close()`. */
export class BrokerPool<D extends BrokerDestination> {
  readonly #entries = new Map<string, PoolEntry<D>>();
  readonly #sweep: NodeJS.Timeout;
  #closed = false;

  constructor(
    private readonly client: BrokerClient<D>,
    private readonly idleMs: number,
  ) {
    // Unref'd: an idle pool must not keep the process alive.
    this.#sweep = setInterval(() => this.#closeIdle(), Math.max(50, Math.floor(idleMs / 2))).unref();
  }

  /** Runs `use` on the connection to `key` (connecting when there is none open). Rejects as `connect` or `use` does. */
  async with<T>(key: string, timeoutMs: number, use: (connection: BrokerConnection<D>) => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error('the transport is closed');
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { connecting: this.client.connect(key, { timeoutMs }), inFlight: 0, lastUsed: Date.now() };
      this.#entries.set(key, entry);
      const made = entry;
      made.connecting.then((connection) => (made.connection = connection)).catch(() => {});
      // A failed connect is forgotten at once: the next attempt tries again.
      made.connecting.catch(() => this.#entries.get(key) === made && this.#entries.delete(key));
    }
    entry.inFlight += 1;
    try {
      const open = await entry.connecting;
      if (!open.open) throw new Error('the connection to the broker was closed');
      return await use(open);
    } finally {
      entry.inFlight -= 1;
      entry.lastUsed = Date.now();
      void this.#dropIfGone(key, entry);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweep);
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => closeEntry(entry)));
  }

  async #dropIfGone(key: string, entry: PoolEntry<D>): Promise<void> {
    const open = await entry.connecting.catch(() => undefined);
    if (open !== undefined && !open.open && this.#entries.get(key) === entry) {
      this.#entries.delete(key);
      await open.close();
    }
  }

  #closeIdle(): void {
    const now = Date.now();
    for (const [key, entry] of this.#entries) {
      if (entry.inFlight === 0 && now - entry.lastUsed >= this.idleMs) {
        this.#entries.delete(key);
        void closeEntry(entry);
      }
    }
  }
}

/** Closes the connection; one still connecting is closed when it connects, without waiting (a stalled broker must not hold a close). */
async function closeEntry<D extends BrokerDestination>(entry: PoolEntry<D>): Promise<void> {
  if (entry.connection !== undefined) return entry.connection.close();
  void entry.connecting.then((connection) => connection.close()).catch(() => {});
}
