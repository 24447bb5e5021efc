import type { CliIo } from './cli-io.js';
import { UsageError, usageMistake } from './command-args.js';
import { configuredRetention, onOperatorStore, storageSettings } from './webhooks/open-operator-store.js';
import { runWebhooksOperation } from './webhooks/run-webhooks-operation.js';
import { parseWebhooksArgs, type WebhooksCommand, type WebhooksOperation } from './webhooks/webhooks-args.js';
import { webhooksUsage } from './webhooks/webhooks-usage.js';

/** `plant-store webhooks …`: operator tools over deliveries and endpoints. Exit status 0 done, 1 failure, 2 bad arguments or settings. */
export async function runWebhooksCommand(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let command: WebhooksOperation;
  let settings: ReturnType<typeof storageSettings>;
  try {
    const parsed = parseWebhooksArgs(args, Date.now());
    if (parsed.command.kind === 'help') {
      io.stdout.write(webhooksUsage);
      return 0;
    }
    settings = storageSettings(parsed.storage, env);
    command = withRetention(parsed.command, env);
  } catch (error) {
    return usageMistake(error, 'webhooks', io);
  }
  return onOperatorStore(settings, io, (store) => runWebhooksOperation(store, command, io));
}

/** `prune` without `--older-than` prunes what the service's retention would; with retention off it needs the flag. */
function withRetention(command: Exclude<WebhooksCommand, { kind: 'help' }>, env: NodeJS.ProcessEnv): WebhooksOperation {
  if (command.kind !== 'prune') return command;
  if (command.olderThan !== undefined) return { kind: 'prune', olderThan: command.olderThan };
  const retention = configuredRetention(env);
  if (retention === null) throw new UsageError('retention is off (PLANT_STORE_WEBHOOK_RETENTION): prune needs --older-than');
  return { kind: 'prune', olderThan: retention };
}
