import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runNodeScript } from '../../../../test/support/node-script.js';
import { batchedLines } from './batched-lines.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function recordingSink(): { writes: string[]; write(chunk: string): boolean } {
  const writes: string[] = [];
  return { writes, write: (chunk) => (writes.push(chunk), true) };
}

describe('batchedLines', () => {
  it('hands the lines of one turn to the sink in one write, at the end of that turn', async () => {
    const sink = recordingSink();
    const batched = batchedLines(sink);
    batched.write('a\n');
    batched.write('b\n');
    expect(sink.writes).toEqual([]);
    await nextTurn();
    expect(sink.writes).toEqual(['a\nb\n']);
    batched.write('c\n');
    await nextTurn();
    expect(sink.writes).toEqual(['a\nb\n', 'c\n']);
    await nextTurn();
    expect(sink.writes).toHaveLength(2);
  });

  it('never splits a line or makes a write larger than its size, unless one line is; writes on flush()', async () => {
    const sink = recordingSink();
    const batched = batchedLines(sink, 8);
    batched.write('123\n');
    batched.write('4567\n');
    expect(sink.writes).toEqual(['123\n']);
    batched.write('a very long line\n');
    expect(sink.writes).toEqual(['123\n', '4567\n', 'a very long line\n']);
    batched.write('x\n');
    batched.flush();
    expect(sink.writes).toEqual(['123\n', '4567\n', 'a very long line\n', 'x\n']);
    batched.flush();
    await nextTurn();
    expect(sink.writes).toHaveLength(4);
  });

  it('loses nothing when the process exits in the turn the lines were written', async () => {
    const module = pathToFileURL(new URL('./batched-lines.ts', import.meta.url).pathname).href;
    const run = await runNodeScript(`
      const { batchedLines } = await import(${JSON.stringify(module)});
      const batched = batchedLines(process.stdout);
      batched.write('first\\n');
      batched.write('last\\n');
      process.exit(3);
    `);
    expect(run).toMatchObject({ code: 3, stdout: 'first\nlast\n' });
  });
});
