import { NotFoundError, type ParkedChoice, type PlantStore, type WebhookEndpoint } from '@plant-store/core';
import { SETTINGS } from '../../config/settings.js';
import type { CliIo } from '../cli-io.js';
import { deliveryJson, endpointJson, jsonArray } from '@plant-store/http-node/webhook-json';
import { checkLines } from './check-lines.js';
import { deliveryDetails, deliveryTable } from './delivery-table.js';
import { endpointTable } from './endpoint-table.js';
import type { WebhooksOperation } from './webhooks-args.js';

const DISABLED_BY_OPERATOR = 'disabled by an operator';

/** Runs one parsed `webhooks` command on an operator store; resolves with the exit status (1: unknown id or wrong state). */
export async function runWebhooksOperation(store: PlantStore, command: WebhooksOperation, io: CliIo): Promise<number> {
  switch (command.kind) {
    case 'list':
    case 'get':
      return show(store, command, io);
    case 'retry':
      return retry(store, command.id, io);
    case 'resend':
      return resend(store, command.id, io);
    case 'recover': {
      const { requeued } = await store.allTenants.webhooks.recover(command.endpoint, command.since);
      const since = new Date(command.since).toISOString();
      io.stdout.write(`queued again ${requeued} failed ${requeued === 1 ? 'delivery' : 'deliveries'} to ${command.endpoint} created since ${since}\n`);
      return 0;
    }
    case 'prune':
      return prune(store, command.olderThan, io);
    case 'check':
      return checkLines(store, command, io);
    case 'endpoints list': {
      const page = await store.allTenants.webhooks.listEndpoints(definedOnly({ limit: command.limit, after: command.after }));
      if (command.json) io.stdout.write(jsonLine(page.endpoints.map(withTenant(endpointJson))));
      else io.stdout.write(endpointTable(page.endpoints, await store.allTenants.webhooks.signatureKinds(page.endpoints.map((endpoint) => endpoint.id))));
      if (page.nextAfter !== undefined && !command.json) io.stdout.write(`more: --after ${page.nextAfter}\n`);
      return 0;
    }
    case 'endpoints disable': {
      const endpoint = await store.allTenants.webhooks.setEndpointStatus(command.id, 'disabled', command.reason ?? DISABLED_BY_OPERATOR);
      io.stdout.write(`disabled ${endpoint.id} (${endpoint.disabledReason ?? DISABLED_BY_OPERATOR})\n`);
      return 0;
    }
    case 'endpoints enable': {
      // Read first: only enabling a disabled endpoint acts on parked messages, and the output says which happened.
      const before = await store.allTenants.webhooks.getEndpoint(command.id);
      const endpoint = await store.allTenants.webhooks.setEndpointStatus(command.id, 'enabled', undefined, command.parked);
      io.stdout.write(enableReport(before, endpoint.id, command.parked));
      return 0;
    }
  }
}

/** What `endpoints enable` did: with the messages parked while the endpoint was disabled, and how many the bound dropped. */
function enableReport(before: WebhookEndpoint, id: string, parked: ParkedChoice): string {
  if (before.status === 'enabled') return `${id} was already enabled: its deliveries are unchanged\n`;
  const recover = `plant-store webhooks recover --endpoint ${id} --since <time> queues them again`;
  const done =
    parked.action === 'discard'
      ? `discarded the messages kept for it while it was disabled (they failed; ${recover})`
      : parked.since === undefined
        ? 'queued again, in order, the messages kept for it while it was disabled'
        : `queued again, in order, the messages kept for it while it was disabled created since ${new Date(parked.since).toISOString()}, and discarded the older ones (they failed; ${recover})`;
  const dropped = before.parkedDropped ?? 0;
  const lost =
    dropped === 0
      ? ''
      : `; ${dropped} older ${dropped === 1 ? 'message was' : 'messages were'} dropped while it was disabled (more than ${SETTINGS.webhookParkedLimit.env} allows)`;
  return `enabled ${id}: ${done}${lost}\n`;
}

async function show(store: PlantStore, command: Extract<WebhooksOperation, { kind: 'list' | 'get' }>, io: CliIo): Promise<number> {
  if (command.kind === 'get') {
    const delivery = await store.allTenants.webhooks.get(command.id);
    io.stdout.write(command.json ? `${withTenant(deliveryJson)(delivery)}\n` : deliveryDetails(delivery));
    return 0;
  }
  const { status, limit, endpoint, tenant } = command;
  const deliveries = await store.allTenants.webhooks.list(definedOnly({ status, limit, endpointId: endpoint, tenant }));
  io.stdout.write(command.json ? jsonLine(deliveries.map(withTenant(deliveryJson))) : deliveryTable(deliveries));
  return 0;
}

async function prune(store: PlantStore, olderThan: number, io: CliIo): Promise<number> {
  const cutoff = new Date(Date.now() - olderThan).toISOString();
  const pruned = await store.allTenants.webhooks.prune({ olderThan });
  io.stdout.write(`pruned ${pruned} delivered, failed or parked ${pruned === 1 ? 'delivery' : 'deliveries'} (with their attempts) finished before ${cutoff}\n`);
  return 0;
}

async function resend(store: PlantStore, id: string, io: CliIo): Promise<number> {
  const delivery = await store.allTenants.webhooks.get(id);
  await store.allTenants.webhooks.resend(id);
  io.stdout.write(`queued ${id} again (was ${delivery.status}, ${attempts(delivery.attemptCount)} so far)\n`);
  return 0;
}

async function retry(store: PlantStore, id: string, io: CliIo): Promise<number> {
  const delivery = await store.allTenants.webhooks.get(id).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  if (!delivery) {
    io.stderr.write(`error: no delivery with id ${id}\n`);
    return 1;
  }
  if (delivery.status !== 'failed') {
    io.stderr.write(`error: delivery ${id} is ${delivery.status}; only failed deliveries can be re-queued\n`);
    return 1;
  }
  await store.allTenants.webhooks.requeue(id);
  io.stdout.write(`re-queued ${id} (${attempts(delivery.attemptCount)} so far, counted by the retry schedule: one attempt if its retries ran out)\n`);
  return 0;
}

const attempts = (count: number): string => `${count} ${count === 1 ? 'attempt' : 'attempts'}`;
/** One JSON array per line, each item as the HTTP API shows it plus the tenant the operator needs (the API is per tenant). */
const jsonLine = (items: readonly string[]): string => `${jsonArray(items)}\n`;
const withTenant =
  <T extends { tenant: string }>(write: (item: T) => string) =>
  (item: T): string =>
    `{"tenant":${JSON.stringify(item.tenant)},${write(item).slice(1)}`;

/** Options without their undefined members (the core's option schemas refuse `undefined`). */
function definedOnly<T extends object>(options: T): T {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as T;
}
