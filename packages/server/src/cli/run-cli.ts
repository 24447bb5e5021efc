import type { CliIo } from './cli-io.js';
import { errorLine } from './error-line.js';
import { mainUsage } from './usage.js';
import { version } from '../version.js';

/** Dispatches `plant-store <command> …` and resolves with the exit status. */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'serve': {
        // Loaded on demand so `--help` and `webhooks` do not open the SQLite driver.
        const { runServeCommand } = await import('./serve-command.js');
        return await runServeCommand(args, env, io);
      }
      case 'webhooks': {
        const { runWebhooksCommand } = await import('./webhooks-command.js');
        return await runWebhooksCommand(args, env, io);
      }
      case 'portal-link': {
        const { runPortalLinkCommand } = await import('./portal-link/portal-link-command.js');
        return await runPortalLinkCommand(args, env, io);
      }
      case 'backup': {
        const { runBackupCommand } = await import('./backup-command.js');
        return await runBackupCommand(args, env, io);
      }
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
