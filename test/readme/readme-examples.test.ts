import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
// Absolute, because the example runs from a scratch working directory.
const tsx = pathToFileURL(createRequire(join(root, 'package.json')).resolve('tsx')).href;

/** The fenced code blocks of one README section, in order. */
async function codeBlocks(heading: string, language: string): Promise<string[]> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);
}

describe('README', () => {
  it('embedding example runs as written and prints what the README says', async () => {
    const [example, output] = await codeBlocks('Embedding the core', 'ts');
    expect(example).toBeDefined();
    // Run it from a scratch folder inside the repo (so @plant-store/* resolve)
    // and a scratch working directory (it writes ./data/example.db).
    const scratch = await mkdtemp(join(root, 'test', 'readme', '.run-'));
    const cwd = await mkdtemp(join(tmpdir(), 'plant-store-readme-'));
    try {
      const file = join(scratch, 'embedding.ts');
      await writeFile(file, example!);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--conditions=source', '--import', tsx, file],
        { cwd, env: { ...process.env, NODE_OPTIONS: '' } },
      );
      const expected = (output ?? '').split('\n').filter((line) => line.startsWith('// ')).map((line) => line.slice(3));
      expect(stdout.trim().split('\n')).toEqual(expected);
    } finally {
      await rm(scratch, { recursive: true, force: true });
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
