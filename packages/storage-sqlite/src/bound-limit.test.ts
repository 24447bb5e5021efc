import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BOUND_LIMIT } from './bound-limit.js';

const SOURCE = fileURLToPath(new URL('.', import.meta.url));

/** The adapter's source files, tests left out, with paths relative to src. */
function sourceFiles(dir = SOURCE): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('BOUND_LIMIT', () => {
  it('limits rows as a bare parameter does, negative meaning no limit', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (n INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3), (4)');
    const statement = db.prepare(`SELECT n FROM t ORDER BY n LIMIT ${BOUND_LIMIT}`).pluck();
    expect(statement.all(2)).toEqual([1, 2]);
    expect(statement.all(0)).toEqual([]);
    expect(statement.all(-1)).toEqual([1, 2, 3, 4]);
    expect(statement.all(9_007_199_254_740_991n)).toEqual([1, 2, 3, 4]);
    db.close();
  });

  it('is what every statement of the adapter limits by: a bare LIMIT ? has the statement planned again at every run', () => {
    const bare = sourceFiles()
      .filter((file) => /\bLIMIT\s+\?/.test(readFileSync(file, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')))
      .map((file) => file.slice(SOURCE.length));
    expect(bare).toEqual([]);
  });
});
