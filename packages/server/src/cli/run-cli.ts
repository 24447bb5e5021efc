import type { CliIo } from './cli-io.js';
import { errorLine } from './error-line.js';
import { mainUsage } from './usage.js';
import { version } from '../version.js';

// Loaded on demand, so that `--help` or `webhooks` does not load the storage drivers of `serve`.
const COMMANDS: Readonly<Record<string, () => Promise<(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo) => Promise<number>>>> = {
  serve: async () => (await import('./serve-command.js')).runServeCommand,
  webhooks: async () => (await import('./webhooks-command.js')).runWebhooksCommand,
  'portal-link': async () => (await import('./portal-link/portal-link-command.js')).runPortalLinkCommand,
  backup: async () => (await import('./backup-command.js')).runBackupCommand,
  migrations: async () => (await import('./migrations-command.js')).runMigrationsCommand,
};

/** Dispatches `plant-store <command> …` and resolves with the exit status. */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    const load = command === undefined ? undefined : COMMANDS[command];
    if (load && Object.hasOwn(COMMANDS, command!)) return await (await load())(args, env, io);
    switch (command) {
      case '-v':
      case '--version':
        io.stdout.write(`${version}\n`);
        return 0;
      case '-h':
      case '--help':
      case 'help':
        io.stdout.write(mainUsage);
        return 0;
      case undefined:
        io.stderr.write(mainUsage);
        return 2;
      default:
        io.stderr.write(`error: unknown command '${command}' (see plant-store --help)\n`);
        return 2;
    }
  } catch (error) {
    io.stderr.write(errorLine(error));
    return 1;
  }
}
