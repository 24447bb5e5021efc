import type { PlantStore, StuckLine } from '@plant-store/core';
import type { CliIo } from '../cli-io.js';
import { textTable } from './text-table.js';
import type { WebhooksOperation } from './webhooks-args.js';

type CheckCommand = Extract<WebhooksOperation, { kind: 'check' }>;

/** A line as checked: with `--repair`, how many of its messages the repair made due (0: it was no longer stuck). */
type CheckedLine = StuckLine & { readonly released?: number };

/**
 * `webhooks check [--repair]`: the delivery lines whose waiting messages can never become due, with counts; `--repair` makes each
 * line's first waiting message due now (one transaction per line). Exit 1 whenever it found any, repaired or not: only a bug leaves them.
 */
export async function checkLines(store: PlantStore, command: CheckCommand, io: CliIo): Promise<number> {
  const webhooks = store.allTenants.webhooks;
  const limit = command.limit ?? 100;
  const stuck = await webhooks.stuckLines({ limit });
  const checked: CheckedLine[] = [];
  for (const line of stuck) checked.push(command.repair ? { ...line, released: await webhooks.releaseStuckLine(line) } : line);
  if (command.json) {
    io.stdout.write(`${JSON.stringify(checked.map(lineJson))}\n`);
  } else {
    io.stdout.write(report(checked, command.repair));
    if (stuck.length === limit) io.stdout.write(`more lines may be stuck: run again${command.repair ? '' : ' with a larger --limit'}\n`);
  }
  return checked.length === 0 ? 0 : 1;
}

function lineJson({ endpointId, tenant, orderingKey, waiting, oldestCreatedAt, released }: CheckedLine) {
  return { endpointId, tenant, ...(orderingKey !== undefined && { orderingKey }), waiting, oldestCreatedAt: new Date(oldestCreatedAt).toISOString(), released };
}

function report(lines: readonly CheckedLine[], repair: boolean): string {
  if (lines.length === 0) return 'every delivery line can drain: no pending message waits without a way to become due\n';
  const header = ['ENDPOINT', 'TENANT', 'PLANT', 'WAITING', 'OLDEST', ...(repair ? ['REPAIR'] : [])];
  const rows = lines.map((line) => [
    line.endpointId,
    line.tenant,
    line.orderingKey ?? '-',
    String(line.waiting),
    new Date(line.oldestCreatedAt).toISOString(),
    ...(repair ? [line.released === 0 ? 'no longer stuck' : `${line.released} made due`] : []),
  ]);
  const waiting = lines.reduce((sum, line) => sum + line.waiting, 0);
  const found = `${lines.length} stuck ${lines.length === 1 ? 'line' : 'lines'}: ${waiting} ${waiting === 1 ? 'message' : 'messages'} can never become due`;
  if (!repair) return `${textTable(header, rows)}${found}; --repair makes each line's first message due now\n`;
  const released = lines.filter((line) => line.released !== 0).length;
  return `${textTable(header, rows)}${found}; released ${released} (the others were moving again)\n`;
}
