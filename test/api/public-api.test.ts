import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Each package's public API (what each entry point in its package.json
// `exports` exports, with kinds and signatures, and the members of every
// exported interface and class) is recorded in packages/<name>/api-report.md,
// so any change to it, down to one port method, shows up as a diff in
// review. After a deliberate change, regenerate with
// `UPDATE_API_REPORTS=1 npx vitest run test/api`.
const root = join(import.meta.dirname, '..', '..');
const packages = readdirSync(join(root, 'packages')).sort();

interface Entry {
  /** The import specifier, e.g. `@plant-store/core/adapter`. */
  readonly specifier: string;
  readonly file: string;
}

/** Every entry point of a package, from the `source` condition of its `exports`. */
function entriesOf(name: string): Entry[] {
  const manifest = JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, { source: string }>;
  };
  return Object.entries(manifest.exports).map(([subpath, conditions]) => ({
    specifier: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
    file: join(root, 'packages', name, conditions.source),
  }));
}

const entries = new Map(packages.map((name) => [name, entriesOf(name)]));
const program = ts.createProgram(
  [...entries.values()].flatMap((list) => list.map((entry) => entry.file)),
  {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['source'],
    experimentalDecorators: true,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  },
);
const checker = program.getTypeChecker();
const typeFormat = ts.TypeFormatFlags.NoTruncation;

/** A type as text, without the absolute `import("…")` paths the checker writes for names out of scope (they differ per machine). */
function portable(text: string): string {
  return text.replace(/import\("[^"]*"(?:, \{ with: \{[^}]*\} \})?\)\./g, '');
}

/** The public members of an interface or class (instance side), one per line, indented. */
function describeMembers(symbol: ts.Symbol, declaration: ts.Declaration): string[] {
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  return checker
    .getPropertiesOfType(type)
    .filter((member) => {
      const modifiers = member.valueDeclaration ? ts.getCombinedModifierFlags(member.valueDeclaration) : 0;
      const fromLibrary = member.declarations?.every((node) => program.isSourceFileDefaultLibrary(node.getSourceFile())) ?? false;
      return !fromLibrary && !/^(__)?#/.test(member.getName()) && !(modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected));
    })
    .map((member) => {
      const memberType = checker.getTypeOfSymbolAtLocation(member, declaration);
      const optional = member.flags & ts.SymbolFlags.Optional ? '?' : '';
      const readonly = member.valueDeclaration && ts.getCombinedModifierFlags(member.valueDeclaration) & ts.ModifierFlags.Readonly ? 'readonly ' : '';
      if (member.flags & ts.SymbolFlags.Method) {
        return checker
          .getSignaturesOfType(memberType, ts.SignatureKind.Call)
          .map((signature) => `  ${member.getName()}${optional}${portable(checker.signatureToString(signature, declaration, typeFormat))}`)
          .join('\n');
      }
      return `  ${readonly}${member.getName()}${optional}: ${portable(checker.typeToString(memberType, declaration, typeFormat))}`;
    });
}

/** Exported with `export type`: a class so exported can be named but not constructed or extended. */
function isTypeOnlyExport(exported: ts.Symbol): boolean {
  const specifier = exported.declarations?.find(ts.isExportSpecifier);
  return specifier !== undefined && (specifier.isTypeOnly || specifier.parent.parent.isTypeOnly);
}

function describeSymbol(exported: ts.Symbol): string {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const name = exported.getName();
  const flags = symbol.getFlags();
  const declaration = symbol.declarations?.[0];
  const typeOnly = isTypeOnlyExport(exported) ? 'type-only ' : '';
  if (flags & ts.SymbolFlags.Class && declaration) return [`${typeOnly}class ${name}`, ...describeMembers(symbol, declaration)].join('\n');
  if (flags & ts.SymbolFlags.Interface && declaration) return [`interface ${name}`, ...describeMembers(symbol, declaration)].join('\n');
  if (flags & ts.SymbolFlags.TypeAlias && declaration) {
    const aliased = checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), declaration, typeFormat | ts.TypeFormatFlags.InTypeAlias);
    return `type ${name} = ${portable(aliased)}`;
  }
  if (flags & ts.SymbolFlags.Function && declaration) {
    const signatures = checker.getSignaturesOfType(checker.getTypeOfSymbolAtLocation(symbol, declaration), ts.SignatureKind.Call);
    return signatures.map((signature) => `function ${name}${checker.signatureToString(signature)}`).join('\n');
  }
  if (declaration) return `const ${name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, declaration))}`;
  return `export ${name}`;
}

/** The sorted exports of one entry point, each with its members. */
function describeEntry(entry: Entry): string {
  const source = program.getSourceFile(entry.file);
  if (!source) throw new Error(`no source file ${entry.file}`);
  const module = checker.getSymbolAtLocation(source);
  const lines = (module ? checker.getExportsOfModule(module) : [])
    .map((symbol) => ({ name: symbol.getName(), text: describeSymbol(symbol) }))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((symbol) => symbol.text);
  return `## ${entry.specifier}\n\n\`\`\`ts\n${lines.join('\n')}\n\`\`\`\n`;
}

function report(packageName: string, list: readonly Entry[]): string {
  return `# API report: packages/${packageName}\n\nGenerated by test/api/public-api.test.ts; do not edit.\n\n${list.map(describeEntry).join('\n')}`;
}

describe('public API reports', () => {
  it.each(packages)('packages/%s matches its api-report.md', (name) => {
    const path = join(root, 'packages', name, 'api-report.md');
    const actual = report(name, entries.get(name)!);
    if (process.env['UPDATE_API_REPORTS'] === '1') writeFileSync(path, actual);
    let recorded = '';
    try {
      recorded = readFileSync(path, 'utf8');
    } catch {
      // No report yet: the comparison below fails and says how to make one.
    }
    expect(actual, `the public API of packages/${name} changed: review it, then run UPDATE_API_REPORTS=1 npx vitest run test/api`).toBe(recorded);
  });
});
