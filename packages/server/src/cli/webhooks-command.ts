import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { NotFoundError, createPlantStore, type Delivery, type DeliveryStatus, type PlantStore } from '@plant-store/core';
import { SETTINGS } from '../config/settings.js';
import type { CliIo } from './cli-io.js';
import { errorLine } from './error-line.js';

/** `plant-store webhooks --help`. */
export const webhooksUsage = `Usage:
  plant-store webhooks list [--status pending|delivered|failed] [--limit N] [--json] [--db FILE]
  plant-store webhooks retry <delivery-id> [--db FILE]

list   shows deliveries, newest first, with status, attempts and last result
       (--limit defaults to 100; --json prints them with every attempt).
retry  puts a failed delivery back in the queue; a running service sends it
       within about a second.

Options:
  --db FILE   SQLite file of the service (${SETTINGS.db.env}; default: ${SETTINGS.db.default})
  -h, --help  show this help
`;

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed'];

/** A command-line mistake: exit status 2 with one line. */
class UsageError extends Error {}

/**
 * `plant-store webhooks list|retry`: operator tools over the webhook outbox of
 * the service's SQLite database. Resolves with the exit status: 0 done,
 * 1 failure (unknown delivery, unreadable database), 2 bad arguments.
 */
export async function runWebhooksCommand(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    io.stderr.write(errorLine(error).replace(/\n$/, ' (see plant-store webhooks --help)\n'));
    return 2;
  }
  if (parsed.help) {
    io.stdout.write(webhooksUsage);
    return 0;
  }

  // An empty variable counts as unset, as for the service.
  const path = parsed.db ?? (env[SETTINGS.db.env] || SETTINGS.db.default);
  // Never create an empty database just to list it.
  if (!existsSync(path)) {
    io.stderr.write(`error: database ${path} does not exist (set ${SETTINGS.db.env} or --db)\n`);
    return 1;
  }
  try {
    // Loaded here so --help and argument mistakes do not load the SQLite driver.
    const { sqliteStorage } = await import('@plant-store/storage-sqlite');
    // No transport: this store only reads and re-queues, the running service sends.
    const store = createPlantStore({ storage: await sqliteStorage({ path }) });
    try {
      if (parsed.command === 'list') {
        const deliveries = await store.webhooks.list({ status: parsed.status, limit: parsed.limit });
        io.stdout.write(parsed.json ? `${JSON.stringify(deliveries, null, 2)}\n` : formatTable(deliveries));
        return 0;
      }
      return await retry(store, parsed.id, io);
    } finally {
      await store.close();
    }
  } catch (error) {
    io.stderr.write(errorLine(error));
    return 1;
  }
}

async function retry(store: PlantStore, id: string, io: CliIo): Promise<number> {
  const delivery = await findDelivery(store, id);
  if (!delivery) {
    io.stderr.write(`error: no delivery with id ${id}\n`);
    return 1;
  }
  if (delivery.status !== 'failed') {
    io.stderr.write(`error: delivery ${id} is ${delivery.status}; only failed deliveries can be re-queued\n`);
    return 1;
  }
  await store.webhooks.requeue(id);
  io.stdout.write(`re-queued ${id} (${delivery.attemptCount} ${delivery.attemptCount === 1 ? 'attempt' : 'attempts'} so far)\n`);
  return 0;
}

async function findDelivery(store: PlantStore, id: string): Promise<Delivery | undefined> {
  try {
    return await store.webhooks.get(id);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

type Parsed =
  | { help: true; command?: undefined; db?: undefined }
  | { help: false; command: 'list'; db?: string; status?: DeliveryStatus; limit?: number; json: boolean }
  | { help: false; command: 'retry'; db?: string; id: string };

function parse(args: readonly string[]): Parsed {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        db: { type: 'string' },
        status: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    // node:util's messages are long and mention "parseArgs"; keep the useful first sentence.
    throw new UsageError(String((error as Error).message).split('. ')[0]!.replace(/^Unknown option/, 'unknown option'));
  }
  if (values.help) return { help: true };
  const [command, ...rest] = positionals;
  if (values.db === '') throw new UsageError('--db must not be empty');
  if (command === 'list') {
    if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
    const status = values.status;
    if (status !== undefined && !STATUSES.includes(status as DeliveryStatus)) {
      throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
    }
    let limit: number | undefined;
    if (values.limit !== undefined) {
      if (!/^\d{1,9}$/.test(values.limit) || Number(values.limit) < 1) throw new UsageError('--limit must be an integer from 1 to 999999999');
      limit = Number(values.limit);
    }
    return { help: false, command, db: values.db, status: status as DeliveryStatus | undefined, limit, json: values.json ?? false };
  }
  if (command === 'retry') {
    if (values.status !== undefined || values.limit !== undefined || values.json !== undefined) {
      throw new UsageError('retry takes only a delivery id and --db');
    }
    if (rest.length === 0 || rest[0] === '') throw new UsageError('retry needs a delivery id');
    if (rest.length > 1) throw new UsageError(`unexpected argument '${rest[1]}'`);
    return { help: false, command, db: values.db, id: rest[0]! };
  }
  if (command === undefined) throw new UsageError('missing subcommand: list or retry');
  throw new UsageError(`unknown subcommand '${command}': use list or retry`);
}

function formatTable(deliveries: readonly Delivery[]): string {
  if (deliveries.length === 0) return 'no deliveries\n';
  const rows = deliveries.map((delivery) => {
    const last = delivery.attempts.at(-1);
    const result = last === undefined ? '-' : (last.error ?? String(last.statusCode));
    return [
      delivery.id,
      delivery.status,
      String(delivery.attemptCount),
      new Date(delivery.createdAt).toISOString(),
      delivery.nextAttemptAt === undefined ? '-' : new Date(delivery.nextAttemptAt).toISOString(),
      result,
      delivery.endpointId,
    ];
  });
  const header = ['ID', 'STATUS', 'ATTEMPTS', 'CREATED', 'NEXT ATTEMPT', 'LAST RESULT', 'ENDPOINT'];
  const table = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  return table
    .map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '))
    .join('\n')
    .concat('\n');
}
