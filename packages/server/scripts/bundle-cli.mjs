// Builds the `plant-store` command as a bundle: dist/bundle/ holds the CLI
// and the chunks it loads on demand, and dist/cli.js starts it.
//
// Why: loaded module by module, the CLI is about 270 files (the workspace
// packages and their dependencies), and resolving, reading and compiling
// them one at a time was most of the time from spawn to ready, more than
// Node.js itself takes to boot. The bundle starts from one file.
// The library entry (dist/index.js, from tsc) is not bundled: hosts import
// it module by module, as any package.
//
// What the bundle keeps as it was:
// - Laziness. What the CLI imports dynamically (a storage adapter, tracing,
//   the serve code behind a valid configuration, the other commands) is a
//   chunk of its own, read only when reached: a memory service never reads
//   the SQL query builder, the PostgreSQL driver or the tracing SDK.
// - Files found next to a module. A module that reads `import.meta.url`
//   (its package.json, the portal's assets, swagger-ui's folder, a package
//   it requires at run time) gets its own source file's URL, computed
//   relative to the bundle, so the lookup lands where it did unbundled.
//   Those paths assume the workspace packages side by side, with their
//   src/ folders, as in this repository and in a flat node_modules/@plant-store/.
// - Native code. better-sqlite3 loads a compiled addon found relative to
//   its own files, so it is never bundled: the module that imports it gets
//   a stand-in that requires the real package, from where that module
//   lives, when the module is first evaluated (never for a memory service).
//
//   node scripts/bundle-cli.mjs   (run by `pnpm build`, after tsc)
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const PACKAGE = dirname(dirname(fileURLToPath(import.meta.url)));
const ENTRY = join(PACKAGE, 'dist', 'cli.js');
// One folder for every file of the bundle: the paths written into it are relative to it.
const OUTDIR = join(PACKAGE, 'dist', 'bundle');
/** Packages with native addons: required at run time from the importing module's folder. */
const NATIVE = new Set(['better-sqlite3']);

/** The path of `file` from the bundle's folder: relative, so the repository can move. */
const fromBundle = (file) => relative(OUTDIR, file);
/** An expression for the URL of a file, given its path from the bundle's folder. */
const urlExpression = (path) => `new URL(${JSON.stringify(path)}, import.meta.url).href`;

/** @type {import('esbuild').Plugin} */
const bundledSources = {
  name: 'bundled-sources',
  setup(plugin) {
    plugin.onLoad({ filter: /\.[cm]?[jt]s$/, namespace: 'file' }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const loader = args.path.endsWith('ts') ? 'ts' : 'js';
      return { contents: text.replaceAll('import.meta.url', urlExpression(fromBundle(args.path))), loader };
    });
  },
};

/** @type {import('esbuild').Plugin} */
const nativeRequiredAtRunTime = {
  name: 'native-required-at-run-time',
  setup(plugin) {
    plugin.onResolve({ filter: /^[^./]/ }, (args) =>
      NATIVE.has(args.path) ? { path: `${args.path}?from=${fromBundle(args.importer)}`, namespace: 'native' } : undefined,
    );
    plugin.onLoad({ filter: /.*/, namespace: 'native' }, (args) => {
      const [name, importer] = args.path.split('?from=');
      return {
        contents: `import { createRequire } from 'node:module';\nexport default createRequire(${urlExpression(importer)})(${JSON.stringify(name)});\n`,
        loader: 'js',
        resolveDir: PACKAGE,
      };
    });
  },
};

await rm(OUTDIR, { recursive: true, force: true });
await build({
  entryPoints: [join(PACKAGE, 'src', 'cli.ts')],
  outdir: OUTDIR,
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  // The workspace packages are bundled from their TypeScript sources, so the
  // bundle never picks up a stale build of them.
  // `module`, which esbuild adds by itself unless conditions are given: a
  // package's ES module build where its exports offer one. Named imports
  // from CommonJS come out of the bundle as getters, read at every use, and
  // OpenTelemetry's API (CommonJS by default) is used on every request.
  conditions: ['source', 'module'],
  // The same for packages that name their ES module build in `module` rather
  // than in their exports (the OpenTelemetry SDK): bundled as CommonJS, the
  // SDK would reach the API through such getters on every span.
  mainFields: ['module', 'main'],
  // pg requires this optional native client only when asked for (`pg.native`).
  external: ['pg-native'],
  // Bundled CommonJS modules call `require` (Node's built-ins, the rest of their package).
  banner: { js: "import { createRequire as bundleRequire } from 'node:module';\nconst require = bundleRequire(import.meta.url);" },
  // For `node --enable-source-maps` and debuggers: frames name the sources.
  sourcemap: 'linked',
  plugins: [bundledSources, nativeRequiredAtRunTime],
  logLevel: 'warning',
});

// The path operators and scripts run (`node packages/server/dist/cli.js`) and the bin loads.
await writeFile(ENTRY, `#!/usr/bin/env node\n// Starts the bundled CLI (built by scripts/bundle-cli.mjs).\nimport './bundle/cli.js';\n`, { mode: 0o755 });
