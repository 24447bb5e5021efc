// The `plant-store` command pnpm links at install time: its target must be a
// committed file (in a fresh clone, before any build, pnpm warns about a
// missing target), and it must run the built CLI.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../support/cli-process.js';

const SERVER = join(ROOT, 'packages/server');
const bin = (JSON.parse(readFileSync(join(SERVER, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['plant-store']!;
const dir = mkdtempSync(join(tmpdir(), 'plant-store-bin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs an executable file (pnpm's links are shell scripts) with the PATH that has this node. */
const run = (file: string, args: readonly string[]) =>
  spawnSync(file, args, { cwd: ROOT, encoding: 'utf8', env: { PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}` } });

describe('the plant-store bin', () => {
  it('is a committed file outside the build output', () => {
    expect(bin).not.toMatch(/^(\.\/)?dist\//);
    expect(() => execFileSync('git', ['ls-files', '--error-unmatch', bin], { cwd: SERVER, stdio: 'pipe' })).not.toThrow();
  });

  it('runs the built CLI, as linked by pnpm (run `pnpm build` first)', async () => {
    const linked = run(join(ROOT, 'node_modules/.bin/plant-store'), ['--help']);
    const fromSource = await runCli(['--help']);
    expect({ status: linked.status, stderr: linked.stderr }).toEqual({ status: 0, stderr: '' });
    expect(linked.stdout).toBe(fromSource.stdout);
  });

  it('says to build first when there is no build', () => {
    mkdirSync(join(dir, 'bin'));
    copyFileSync(join(SERVER, bin), join(dir, 'bin/plant-store.js'));
    chmodSync(join(dir, 'bin/plant-store.js'), 0o755);
    const unbuilt = run(join(dir, 'bin/plant-store.js'), ['--help']);
    expect(unbuilt).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'error: plant-store is not built yet: run `pnpm build` in the repository first\n',
    });
  });
});
