import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// No function over about 40 lines anywhere in packages/*/src: a function
// that does not fit on a screen is hard to read and review as one piece. Every function-like node with a body (declarations,
// methods, accessors, constructors, arrow functions, function expressions)
// is measured from its first token to its last, signature included. Tests
// are exempt, and so are the published conformance suites (`*-conformance.ts`,
// tests too): a describe block is a list, not a function to read.
const MAX_LINES = 40;
const root = join(import.meta.dirname, '..', '..');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.isFile() && entry.name.endsWith('.ts') && !/\.test\.ts$|-conformance\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** `file:line (N lines)` for every function-like node in `text` whose span exceeds `max` lines. */
function longFunctions(file: string, text: string, max = MAX_LINES): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const length = source.getLineAndCharacterOfPosition(node.getEnd()).line - start + 1;
      if (length > max) found.push(`${file}:${start + 1} (${length} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const files = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) => {
    const src = join(root, 'packages', entry.name, 'src');
    try {
      return sourceFiles(src);
    } catch {
      return []; // A package without src/ has no functions to measure.
    }
  })
  .sort();

describe('function length', () => {
  it('finds the source files', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files.some((file) => file.endsWith(join('core', 'src', 'index.ts')))).toBe(true);
  });

  it(`catches a function longer than ${MAX_LINES} lines, nested or not, and lets one of ${MAX_LINES} pass`, () => {
    const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const ok = `function ok() {\n${body(MAX_LINES)}\n}\n`;
    const long = `export const outer = () => {\n  class C {\n    method() {\n${body(MAX_LINES + 1)}\n    }\n  }\n  return C;\n};\n`;
    expect(longFunctions('ok.ts', ok)).toEqual([]);
    expect(longFunctions('long.ts', long)).toEqual(['long.ts:1 (46 lines)', 'long.ts:3 (41 lines)']);
  });

  it(`has no function over ${MAX_LINES} lines in packages/*/src`, () => {
    const offenders = files.flatMap((file) => longFunctions(relative(root, file), readFileSync(file, 'utf8')));
    expect(offenders, `split these into smaller named functions:\n${offenders.join('\n')}`).toEqual([]);
  });
});
