import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { logOutput } from './log-output.js';

/** A stream whose writes fail with EPIPE from the `failAt`-th on, as a pipe whose reader is gone. */
function pipeClosingAt(failAt: number) {
  const written: string[] = [];
  let writes = 0;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writes++;
      if (writes < failAt) {
        written.push(chunk.toString());
        callback();
      } else {
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      }
    },
  });
  return { stream, written, writes: () => writes };
}

describe('logOutput', () => {
  it('writes until the stream fails, then drops what is written, warning once, and nothing throws', async () => {
    const pipe = pipeClosingAt(3);
    const warnings: string[] = [];
    const sink = logOutput(pipe.stream, { write: (message: string) => warnings.push(message) });
    sink.write('one\n');
    sink.write('two\n');
    sink.write('three\n');
    // The stream reports the failure as an `error` event, a tick later.
    await new Promise((resolve) => setImmediate(resolve));
    for (let index = 0; index < 5; index++) sink.write(`after ${index}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(pipe.written).toEqual(['one\n', 'two\n']);
    expect(pipe.writes()).toBe(3);
    expect(warnings).toEqual(['warning: the log output failed (EPIPE); log lines are dropped from now on\n']);
  });

  it('writes to a sink that is not a stream as it is, at once, and nothing after its end', async () => {
    const written: string[] = [];
    const output = logOutput({ write: (chunk: string) => written.push(chunk) }, { write: () => true });
    output.write('one\n');
    expect(written).toEqual(['one\n']);
    await output.end();
    output.write('two\n');
    expect(written).toEqual(['one\n']);
  });
});
