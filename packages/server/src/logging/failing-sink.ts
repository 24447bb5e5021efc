import type { EventEmitter } from 'node:events';
import type { LogSink } from './json-logger.js';

/**
 * `sink`, writing until it fails, then dropping what is written, with one
 * `warn` saying so. A closed pipe on stdout (the log reader gone: a
 * `| head`, a supervisor's collector restarting) makes the next write fail
 * with EPIPE, which the stream emits as an `error`; with no listener that
 * ends the process, and a service must not stop answering requests because
 * nobody reads its log. A sink that is not a stream (a test's buffer) is
 * written to as it is.
 */
export function failingSink(sink: LogSink, warn: (message: string) => void): LogSink {
  const stream = sink as Partial<EventEmitter>;
  if (typeof stream.on !== 'function') return sink;
  let failed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true;
    warn(`warning: the log output failed (${error.code ?? error.message}); log lines are dropped from now on\n`);
  });
  return {
    write(chunk) {
      if (!failed) sink.write(chunk);
      return true;
    },
  };
}
