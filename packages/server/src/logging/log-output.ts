import type { EventEmitter } from 'node:events';
import { pino } from 'pino';
import type { LogSink } from './json-logger.js';

export interface LogOutput extends LogSink {
  /** Resolves once what is buffered is written; lines written after it are dropped. Idempotent. */
  end(): Promise<void>;
}

type Destination = LogSink & Partial<EventEmitter> & { end?(): void };

/**
 * The log output on `stdout` (pino's asynchronous destination for the process's own). A stream that fails drops its lines
 * from then on, with one warning: a service must not stop answering because nobody reads its log.
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
