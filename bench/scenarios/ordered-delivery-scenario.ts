import { join } from 'node:path';
import type { EndpointOrdering } from '@plant-store/core';
import type { Storage } from '@plant-store/core/adapter';
import { postgresStorage } from '@plant-store/storage-postgres';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import type { BenchContext } from '../lib/bench-context.js';
import type { BenchPostgres } from '../lib/bench-postgres.js';
import type { ServerConfig } from '../lib/server-launcher.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { startReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.js';
import { BENCH_TOKENS, WRITE_TOKEN } from './http-scenarios.js';

const TENANT = BENCH_TOKENS[WRITE_TOKEN]!;
const ORDERINGS: readonly EndpointOrdering[] = ['none', 'plant'];

export type OrderedDeliveryResult = Awaited<ReturnType<typeof runOrderedDeliveryScenario>>;

/** Each plant is created, then deleted: a line of two messages to the endpoint, the second held by `plant` until the first ends. */
async function queueLines(storage: Storage, url: string, secret: string, ordering: EndpointOrdering, plants: number): Promise<void> {
  try {
    const endpoint = { id: `ep_bench_${ordering}`, tenant: TENANT, url, secret, ordering, createdAt: Date.now() };
    await storage.endpoints.create({ ...endpoint, eventTypes: ['plant.created', 'plant.deleted'] }, 50);
    for (let first = 1; first <= plants; first += 100) {
      const ids = Array.from({ length: Math.min(100, plants - first + 1) }, (_, index) => BigInt(first + index));
      const event = (eventType: 'plant.created' | 'plant.deleted', id: bigint) => ({ eventType, payload: `{"id":${id}}`, createdAt: Date.now() });
      await Promise.all(ids.map((id) => storage.plants.create(TENANT, { id, name: `plant ${id}` }, [], event('plant.created', id))));
      await Promise.all(ids.map((id) => storage.plants.delete(TENANT, id, event('plant.deleted', id))));
    }
  } finally {
    await storage.close();
  }
}

/** Plants whose plant.deleted arrived before their plant.created (only `none` may have any). */
function outOfOrder(receiver: WebhookReceiver): number {
  const createdAt = new Map<string, number>();
  let late = 0;
  for (const arrival of receiver.messages.values()) {
    const plant = /"id":(\d+)/.exec(arrival.body)![1]!;
    if (arrival.headers['plant-store-event'] === 'plant.created') createdAt.set(plant, arrival.headAt);
    else if (!createdAt.has(plant)) late++;
  }
  return late;
}

/**
 * Ordered delivery's cost: a backlog of 2 × N messages (N plants, each created then deleted) to one tenant endpoint,
 * queued through the storage before the services start, drained to a loopback receiver answering 204; deliveries/s
 * (first ready line → last received) with the endpoint's ordering `none`, then `plant`. One service on SQLite, or two
 * on one PostgreSQL schema.
 */
export async function runOrderedDeliveryScenario(context: BenchContext, postgres?: BenchPostgres) {
  const plants = Math.max(1, Math.round(context.options.webhookPlants / 2));
  const instances = postgres ? 2 : 1;
  const runs = [];
  for (const ordering of ORDERINGS) {
    const receiver = await startReceiver();
    const dbFile = join(context.workDir, `ordered-${ordering}.db`);
    const schema = postgres ? await postgres.createSchema(`ordered_${ordering}`) : undefined;
    const servers: RunningServer[] = [];
    try {
      const storage = postgres ? await postgresStorage({ connectionString: postgres.databaseUrl, schema, poolSize: 4 }) : await sqliteStorage({ path: dbFile });
      context.log(`  queueing ${2 * plants} deliveries (ordering ${ordering})`);
      await queueLines(storage, receiver.url(), receiver.secret, ordering, plants);
      const config = (index: number): ServerConfig => ({
        ...(postgres ? postgres.serverConfig(schema!) : { storage: 'sqlite', dbFile }),
        tokens: BENCH_TOKENS,
        logging: false,
        env: { PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' },
        ...context.profile(`ordered-${ordering}-${index + 1}`),
      });
      const spawnedAt = performance.now();
      for (let index = 0; index < instances; index++) servers.push(await startServer(context.launcher.spec('service', config(index))));
      const readyAt = spawnedAt + Math.min(...servers.map((server) => server.readyMs));
      await receiver.waitForMessages(2 * plants, { timeoutMs: 180_000 });
      const last = Math.max(...[...receiver.messages.values()].map((arrival) => arrival.headAt));
      const seconds = (last - readyAt) / 1000;
      context.log(`  ordering ${ordering}: ${2 * plants} deliveries in ${seconds.toFixed(2)} s → ${((2 * plants) / seconds).toFixed(0)}/s`);
      runs.push({ ordering, deliveries: 2 * plants, seconds, perSecond: (2 * plants) / seconds, outOfOrder: outOfOrder(receiver) });
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      await receiver.close();
      if (schema !== undefined) await postgres!.dropSchema(schema);
    }
  }
  const [none, plant] = runs as [(typeof runs)[number], (typeof runs)[number]];
  return { storage: postgres ? ('postgres' as const) : ('sqlite' as const), instances, plants, none, plant, ratio: plant.perSecond / none.perSecond };
}

/** The report's section for one run of the scenario. */
export function orderedDeliverySection(result: OrderedDeliveryResult | undefined): string {
  if (!result) return '';
  const where = result.instances > 1 ? `${result.instances} service instances on one PostgreSQL schema` : 'service on SQLite';
  const row = (run: OrderedDeliveryResult['none']) => [
    `\`${run.ordering}\``,
    `**${Math.round(run.perSecond).toLocaleString('en-US')}/s**`,
    `${run.seconds.toFixed(2)} s`,
    String(run.outOfOrder),
  ];
  return `## Ordered delivery (${where}, ${result.plants.toLocaleString('en-US')} plants created then deleted, one endpoint)

| ordering | deliveries/s | backlog drained in | plant.deleted before its plant.created |
|---|---:|---:|---:|
| ${row(result.none).join(' | ')} |
| ${row(result.plant).join(' | ')} |

With ordering \`plant\`: **${result.ratio.toFixed(2)}x** the deliveries/s of \`none\`.`;
}
