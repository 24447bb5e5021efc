import { Writable } from 'node:stream';
import { runCli } from '@plant-store/server';

/** What a CLI run in this process printed, and its exit status. */
export interface InProcessExit {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A stream that collects what is written to it as text. */
function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { stream, text: () => text };
}

/**
 * Runs `plant-store …argv` in this process (no child, no build) with exactly
 * `env` as its environment, collecting stdout and stderr.
 */
export async function runCliInProcess(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<InProcessExit> {
  const stdout = capture();
  const stderr = capture();
  const status = await runCli(argv, env, { stdout: stdout.stream, stderr: stderr.stream });
  return { status, stdout: stdout.text(), stderr: stderr.text() };
}
