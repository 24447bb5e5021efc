// Builds the portal page into static files: index.html, one script and one
// stylesheet, the latter two named after a hash of their content so a
// browser may cache them for good. Nothing is inlined, as the page is served
// under a Content-Security-Policy that allows only this origin's files.
//
//   node scripts/build-bundle.mjs [--outdir <folder>]   (default: dist/assets)
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const PACKAGE = dirname(dirname(fileURLToPath(import.meta.url)));
const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
const outdir = resolve(values.outdir ?? join(PACKAGE, 'dist', 'assets'));

const result = await build({
  entryPoints: { portal: join(PACKAGE, 'app', 'main.tsx') },
  bundle: true,
  format: 'esm',
  // Current Chromium and Firefox; nothing older is supported.
  target: ['chrome120', 'firefox121', 'safari17'],
  minify: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  // The workspace packages (the client) are bundled from their TypeScript
  // sources, so the bundle never picks up a stale build of them.
  conditions: ['source'],
  entryNames: '[name]-[hash]',
  outdir,
  write: false,
  metafile: true,
  legalComments: 'eof',
  logLevel: 'warning',
});

const outputs = result.outputFiles.map((file) => ({ name: basename(file.path), contents: file.contents }));
const script = outputs.find((file) => file.name.endsWith('.js'));
const style = outputs.find((file) => file.name.endsWith('.css'));
if (script === undefined || style === undefined || outputs.length !== 2) {
  throw new Error(`expected one script and one stylesheet, got ${outputs.map((file) => file.name).join(', ')}`);
}
// Relative to the page (`<base>/portal`), so the page works under any base path.
const template = await readFile(join(PACKAGE, 'app', 'index.html'), 'utf8');
const page = template.replace('%STYLE%', `portal/${style.name}`).replace('%SCRIPT%', `portal/${script.name}`);

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
await Promise.all([...outputs.map((file) => writeFile(join(outdir, file.name), file.contents)), writeFile(join(outdir, 'index.html'), page)]);
