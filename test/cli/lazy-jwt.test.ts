import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { READY_LINE, TSX } from '../support/cli-process.js';

const CLI = fileURLToPath(new URL('../../packages/server/src/cli.ts', import.meta.url));

// A module resolve hook that refuses jose: a process that would load it fails at once, naming it.
const REFUSE_JOSE = `data:text/javascript,${encodeURIComponent(`
  export async function resolve(specifier, context, next) {
    if (specifier === 'jose') throw new Error('jose was loaded');
    return next(specifier, context);
  }
`)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(`
  import { register } from 'node:module';
  register(${JSON.stringify(REFUSE_JOSE)});
`)}`;

/** Starts `serve` with jose refused; resolves with its output once it is ready or has exited. */
function serveWithoutJose(args: readonly string[]): Promise<{ ready: boolean; output: string }> {
  const child = spawn(process.execPath, ['--import', REGISTER, '--conditions=source', '--import', TSX, CLI, 'serve', ...args], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (READY_LINE.test(output)) {
        child.kill('SIGTERM');
        resolve({ ready: true, output });
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('exit', () => resolve({ ready: false, output }));
  });
}

describe('the JWT adapter loads lazily', () => {
  it('a service without JWT settings starts without loading jose', async () => {
    const { ready, output } = await serveWithoutJose(['--port', '0', '--storage', 'memory', '--tokens', 't=acme']);
    expect(output).not.toContain('jose was loaded');
    expect(ready).toBe(true);
  });
});
