import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The client must run in browsers: nothing from Node, nothing that pulls in
// core (tsyringe, valibot…).
const packageRoot = join(import.meta.dirname, '..');
const sources = readdirSync(join(packageRoot, 'src'))
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
  .map((file) => ({ file, text: readFileSync(join(packageRoot, 'src', file), 'utf8') }));

describe('@plant-store/client in browsers', () => {
  it('imports only its own modules and lossless-json', () => {
    expect(sources.length).toBeGreaterThan(5);
    for (const { file, text } of sources) {
      const imported = [...text.matchAll(/\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'/g)].map((match) => match[1] ?? match[2]);
      const foreign = imported.filter((name) => !name!.startsWith('./') && name !== 'lossless-json');
      expect({ file, foreign }).toEqual({ file, foreign: [] });
      expect({ file, nodeGlobals: text.match(/\b(Buffer|process|require|__dirname)\b[.(]/g) }).toEqual({ file, nodeGlobals: null });
    }
    const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(manifest['dependencies'] as object)).toEqual(['lossless-json']);
    expect(manifest['peerDependencies']).toBeUndefined();
  });

  it('type-checks with the browser globals only (lib DOM, no @types/node)', async () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const run = promisify(execFile);
    const result = await run(process.execPath, [tsc, '-p', join(packageRoot, 'tsconfig.browser.json')]).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe('');
  });
});
