import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/**
 * Transpiles bench/baselines/*.ts to plain ESM JavaScript in `outDir`, so the
 * baselines run on bare `node` exactly like the built service (no loader
 * hooks, no source-map support in their processes).
 */
export function compileBaselines(sourceDir: string, outDir: string): void {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'package.json'), '{"type":"module"}\n');
  for (const file of readdirSync(sourceDir)) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    const output = ts.transpileModule(readFileSync(join(sourceDir, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      fileName: file,
    });
    writeFileSync(join(outDir, file.replace(/\.ts$/, '.js')), output.outputText);
  }
}
