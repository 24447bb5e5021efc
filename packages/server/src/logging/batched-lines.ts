import type { LogSink } from './json-logger.js';

/** A `LogSink` that can be told to pass on what it holds now. */
export interface BatchedSink extends LogSink {
  /** Writes what is held, if anything, to the underlying sink at once. */
  flush(): void;
}

/**
 * Most text one write carries, in characters: POSIX's PIPE_BUF (4 KiB), the
 * most a pipe takes in one piece. Several processes writing into one pipe
 * (a supervisor's, say) then cannot split each other's lines, as long as
 * they are ASCII; and 4 KiB still holds about 25 request lines.
 */
const DEFAULT_MAX_CHARS = 4096;

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
 * at `setImmediate`, on `flush()`, before a line that would take it past
 * `maxChars`, and when the process exits (`process.exit()` and uncaught errors included). Only a
 * process killed outright (SIGKILL) loses the lines of its last turn.
 */
export function batchedLines(sink: LogSink, maxChars = DEFAULT_MAX_CHARS): BatchedSink {
  let held = '';
  let scheduled = false;
  const batched: BatchedSink = {
    write(chunk) {
      // Whole lines per write: what is held goes first when this one would not fit with it.
      if (held !== '' && held.length + chunk.length > maxChars) batched.flush();
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
