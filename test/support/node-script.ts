import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a script printed and how it ended. */
export interface ScriptRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts an ES module script in a fresh Node process that loads the workspace's TypeScript sources (stdin, stdout and stderr piped). */
export function spawnNodeScript(script: string): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPOSITORY_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Runs an ES module script as `spawnNodeScript` does (stdin at its end) and resolves with its output once it exits. */
export function runNodeScript(script: string): Promise<ScriptRun> {
  const child = spawnNodeScript(script);
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The opening lines of a script (for `runNodeScript`) after which any import
 * of `specifier` fails with "<specifier> was loaded": a resolve hook, so a
 * test can prove a path never loads a package.
 */
export function refusingImportOf(specifier: string): string {
  const refuse = `if (specifier === ${JSON.stringify(specifier)}) throw new Error(${JSON.stringify(`${specifier} was loaded`)});`;
  const hook = `export async function resolve(specifier, context, next) { ${refuse} return next(specifier, context); }`;
  // registerHooks where Node has it (22.15 on): from Node 26 on, register() writes a deprecation warning to stderr; Node 20 has only register().
  return `import * as nodeModule from 'node:module';
if (nodeModule.registerHooks) nodeModule.registerHooks({ resolve(specifier, context, next) { ${refuse} return next(specifier, context); } });
else nodeModule.register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
`;
}
