import type { LogSink } from './json-logger.js';

/** A `LogSink` that can be told to pass on what it holds now. */
export interface BatchedSink extends LogSink {
  /** Writes what is held, if anything, to the underlying sink at once. */
  flush(): void;
}

/** Held text, in characters, that is written at once instead of waiting for the end of the turn. */
const DEFAULT_MAX_CHARS = 64 * 1024;

/** Sinks holding text, flushed when the process exits. One `exit` listener for all of them. */
const holding = new Set<BatchedSink>();
let exitHookInstalled = false;

function flushAllAtExit(): void {
  for (const sink of holding) sink.flush();
}

/**
 * Hands `sink` the lines written during one turn of the event loop in one
 * write. Under load every response writes a request line; on a pipe or a
 * file each write is a system call, which cost the service more than the
 * line itself, while lines written in the same turn can leave together.
 *
 * Nothing waits longer than the turn it was written in: held text goes out
 * at `setImmediate`, on `flush()`, once it passes `maxChars`, and when the
 * process exits (`process.exit()` and uncaught errors included). Only a
 * process killed outright (SIGKILL) loses the lines of its last turn.
 */
export function batchedLines(sink: LogSink, maxChars = DEFAULT_MAX_CHARS): BatchedSink {
  let held = '';
  let scheduled = false;
  const batched: BatchedSink = {
    write(chunk) {
      held += chunk;
      if (held.length >= maxChars) {
        batched.flush();
      } else if (!scheduled) {
        scheduled = true;
        holding.add(batched);
        setImmediate(batched.flush);
      }
      return true;
    },
    flush() {
      scheduled = false;
      holding.delete(batched);
      if (held === '') return;
      const text = held;
      held = '';
      sink.write(text);
    },
  };
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', flushAllAtExit);
  }
  return batched;
}
