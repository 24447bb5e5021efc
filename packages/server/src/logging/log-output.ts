import type { EventEmitter } from 'node:events';
import { pino } from 'pino';
import type { LogSink } from './json-logger.js';

/** The service's log output: a sink for the logger and the ready line, and its end. */
export interface LogOutput extends LogSink {
  /** Resolves once what is buffered is written; lines written after it are dropped. Idempotent. */
  end(): Promise<void>;
}

type Destination = LogSink & Partial<EventEmitter> & { end?(): void };

/**
 * The log output on `stdout`. The process's own stdout gets pino's
 * asynchronous destination: lines written while one write is in flight
 * leave together in the next, instead of one system call per request
 * line; pino flushes it when the process exits. Any other sink (a test's
 * buffer, a host's stream) is written to as it is.
 *
 * A stream that fails (a closed pipe: the log reader gone) makes the
 * output drop its lines from then on, with one warning on `stderr`: a
 * service must not stop answering requests because nobody reads its log.
 */
export function logOutput(stdout: LogSink, stderr: LogSink): LogOutput {
  const destination = stdout === process.stdout ? pino.destination({ fd: 1, sync: false }) : undefined;
  const stream: Destination = destination ?? stdout;
  let failed = false;
  let ended: Promise<void> | undefined;
  stream.on?.('error', (error: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true;
    stderr.write(`warning: the log output failed (${error.code ?? error.message}); log lines are dropped from now on\n`);
  });
  return {
    write(chunk) {
      if (!failed && ended === undefined) stream.write(chunk);
      return true;
    },
    end() {
      ended ??=
        destination === undefined || failed
          ? Promise.resolve()
          : new Promise((resolve) => {
              // The destination writes what it holds, in order, then closes (never fd 1 itself).
              destination.once('close', () => resolve());
              destination.end();
            });
      return ended;
    },
  };
}
