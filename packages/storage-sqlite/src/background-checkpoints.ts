import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database as BetterSqlite3 } from 'better-sqlite3';

/** SQLite's default automatic checkpoint, in pages. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

/** The main connection's own checkpoint while the worker serves it: 64 MiB of 4 KiB pages, never reached when the worker keeps up. */
export const BACKSTOP_PAGES = 16_384;

/** Least time between two checkpoints of a database, in ms (each syncs the disk). */
const PAUSE_MS = 25;

/** Write transactions on a database before the worker serves it. */
export const WRITES_BEFORE_WORKER = 64;

/** How long `close()` waits for the worker to let go of the database, in ms. */
const CLOSE_TIMEOUT_MS = 5_000;

/** Slots of a database's shared state. */
const WRITES = 0;
const STOP = 1;

// The worker's program, as plain JavaScript (the package also runs from its TypeScript sources, in tests). Per
// database it waits for the write counter to move, checkpoints, pauses, and on `close` lets go of the file.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const pause = (state) => Atomics.waitAsync(state, ${STOP}, 0, ${PAUSE_MS}).value;
async function serve({ id, path, busyTimeoutMs, state: buffer }) {
  const state = new Int32Array(buffer);
  let db;
  try {
    db = new Database(path);
    db.pragma('busy_timeout = ' + busyTimeoutMs);
    parentPort.postMessage({ id, ready: true });
    let seen = Atomics.load(state, ${WRITES});
    while (Atomics.load(state, ${STOP}) === 0) {
      await Atomics.waitAsync(state, ${WRITES}, seen).value;
      if (Atomics.load(state, ${STOP}) !== 0) break;
      seen = Atomics.load(state, ${WRITES});
      db.pragma('wal_checkpoint(PASSIVE)');
      await pause(state);
    }
    db.close();
    parentPort.postMessage({ id, closed: true });
  } catch (error) {
    try { db?.close(); } catch {}
    parentPort.postMessage({ id, failed: String(error && error.message || error) });
  }
}
parentPort.on('message', (database) => void serve(database));
`;

interface BackgroundCheckpointsOptions {
  /** The database file (a plain path: in-memory databases have no log to checkpoint). */
  readonly path: string;
  readonly busyTimeoutMs: number;
  /** Called once when the worker fails for this database: the main connection checkpoints by itself again. */
  readonly onFailure?: (error: Error) => void;
}

type WorkerAnswer = { readonly id: number } & ({ readonly ready: true } | { readonly closed: true } | { readonly failed: string });

/** The process's checkpoint worker and the databases it serves, by id. */
interface SharedWorker {
  readonly worker: Worker;
  readonly listeners: Map<number, (answer: WorkerAnswer) => void>;
}

let shared: SharedWorker | undefined;
let nextId = 1;

function sharedWorker(): SharedWorker {
  if (shared !== undefined) return shared;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3') },
    // One statement in a loop: a small heap is plenty.
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
  });
  const listeners = new Map<number, (answer: WorkerAnswer) => void>();
  const current: SharedWorker = { worker, listeners };
  worker.on('message', (answer: WorkerAnswer) => listeners.get(answer.id)?.(answer));
  const lost = (reason: string) => {
    if (shared === current) shared = undefined;
    for (const [id, listener] of listeners) listener({ id, failed: reason });
    listeners.clear();
  };
  worker.on('error', (error) => lost(error.message));
  worker.on('exit', (code) => lost(`the checkpoint worker exited with code ${code}`));
  // Never the reason the process stays up (after the listeners: adding a message listener refs the port again).
  worker.unref();
  return (shared = current);
}

/**
 * Checkpoints the write-ahead log on a worker thread with a connection of its own: SQLite's automatic checkpoint
 * syncs the disk inside the COMMIT that fills the log, freezing the (synchronous) event loop. A PASSIVE checkpoint
 * takes no write lock. The main connection keeps a backstop at a larger log, and SQLite's default if the worker fails.
 * One worker serves the process, started after `WRITES_BEFORE_WORKER` writes, so a CLI command never starts one.
 */
export class BackgroundCheckpoints {
  readonly #db: BetterSqlite3;
  readonly #options: BackgroundCheckpointsOptions;
  readonly #state = new Int32Array(new SharedArrayBuffer(8));
  readonly #id = nextId++;
  #served: SharedWorker | undefined;
  #failed = false;
  #closing: Promise<void> | undefined;
  #released: (() => void) | undefined;
  #writesBeforeWorker = WRITES_BEFORE_WORKER;

  constructor(db: BetterSqlite3, options: BackgroundCheckpointsOptions) {
    this.#db = db;
    this.#options = options;
  }

  /** Called once per write transaction: wakes the worker (cheap: a shared counter, no message). */
  noteWrite(): void {
    if (this.#failed || this.#closing !== undefined) return;
    if (this.#served === undefined) {
      if (--this.#writesBeforeWorker > 0) return;
      this.#start();
    }
    Atomics.add(this.#state, WRITES, 1);
    Atomics.notify(this.#state, WRITES, 1);
  }

  /** Ends the worker's connection to this database; call before closing the database (the last connection to close checkpoints what is left). */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    if (this.#served === undefined) return;
    const letGo = new Promise<void>((resolveLetGo) => (this.#released = resolveLetGo));
    // The counter moves too, so a loop that has not reached its wait yet does not start one.
    Atomics.store(this.#state, STOP, 1);
    Atomics.add(this.#state, WRITES, 1);
    Atomics.notify(this.#state, WRITES);
    Atomics.notify(this.#state, STOP);
    // A worker stuck past the timeout only delays the final checkpoint; the timer keeps the process up meanwhile.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([letGo, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)))]);
    clearTimeout(timer);
    this.#leave();
  }

  #start(): void {
    try {
      this.#served = sharedWorker();
    } catch (error) {
      this.#fail(error instanceof Error ? error.message : String(error));
      return;
    }
    this.#served.listeners.set(this.#id, (answer) => this.#answered(answer));
    const { path, busyTimeoutMs } = this.#options;
    this.#served.worker.postMessage({ id: this.#id, path, busyTimeoutMs, state: this.#state.buffer });
  }

  #answered(answer: WorkerAnswer): void {
    if ('ready' in answer) {
      // Only once the worker has its connection does the main one stop checkpointing at the default size.
      if (this.#closing === undefined && this.#db.open) this.#db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    } else if ('closed' in answer) {
      this.#leave();
    } else this.#fail(answer.failed);
  }

  /** No longer served: the worker let go of the database (or never will). */
  #leave(): void {
    this.#served?.listeners.delete(this.#id);
    this.#served = undefined;
    this.#released?.();
  }

  #fail(reason: string): void {
    this.#leave();
    if (this.#failed || this.#closing !== undefined) return;
    this.#failed = true;
    if (this.#db.open) this.#db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
    this.#options.onFailure?.(new Error(reason));
  }
}
