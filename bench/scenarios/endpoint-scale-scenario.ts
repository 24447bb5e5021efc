import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { plantToJson, subscriptionId, type Storage } from '@plant-store/core/adapter';
import { postgresStorage } from '@plant-store/storage-postgres';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import type { BenchContext } from '../lib/bench-context.js';
import { openBenchPostgres, type BenchPostgres } from '../lib/bench-postgres.js';
import { runLoad } from '../lib/load.js';
import type { ServerConfig } from '../lib/server-launcher.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { startReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.js';

/** Endpoints over tenants: ten each, so the busy tenant has ten whatever the scale; the others stay quiet. */
const SCALES = [
  { endpoints: 10, tenants: 1 },
  { endpoints: 1_000, tenants: 100 },
  { endpoints: 5_000, tenants: 500 },
] as const;
/** Operator subscriptions in the comparison run: as many as the busy tenant has endpoints. */
const SUBSCRIPTIONS = 10;
const BUSY_TOKEN = 'bench-scale-busy-token-0123456789abcdef';
const NONE_TOKEN = 'bench-scale-none-token-0123456789abcdef';
const tenantName = (index: number) => `scale-${index}`;
const TOKENS = { [BUSY_TOKEN]: tenantName(0), [NONE_TOKEN]: 'scale-none' };
const HEADERS = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
const CREATE_BASE = 7_000_000_000;
const NONE_BASE = 8_000_000_000;
/** Creates in flight while seeding and queueing (the storage's pool takes the rest). */
const SEED_CONCURRENCY = 16;

export type EndpointScaleResult = Awaited<ReturnType<typeof runEndpointScaleScenario>>;

/** One run: its backlog's drain rate, and (tenant endpoints only) creates/s to a tenant without endpoints and to the busy one. */
interface ScaleRun extends ScaleSetup {
  readonly deliveries: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly createsNone?: number;
  readonly createsFanned?: number;
}

/** Runs `task` over `0 … count - 1` with at most SEED_CONCURRENCY at once. */
async function inParallel(count: number, task: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(SEED_CONCURRENCY, count) }, worker));
}

/** `endpoints` endpoints over `tenants` tenants (ids in tenant order), all to the receiver, subscribed to plant.created. */
async function seedEndpoints(storage: Storage, receiver: WebhookReceiver, endpoints: number, tenants: number): Promise<void> {
  const perTenant = endpoints / tenants;
  await inParallel(endpoints, async (index) => {
    const tenant = tenantName(Math.floor(index / perTenant));
    const endpoint = { id: `ep_scale_${String(index).padStart(5, '0')}`, tenant, url: receiver.url(), secret: receiver.secret, createdAt: Date.now() };
    if (!(await storage.endpoints.create({ ...endpoint, eventTypes: ['plant.created'] }, 50))) throw new Error(`could not create ${endpoint.id}`);
  });
}

/** `plants` plants in the busy tenant, each fanned out by the storage to its endpoints (or queued to `subscriptionUrls`). */
async function queuePlants(storage: Storage, plants: number, subscriptionUrls: readonly string[] = []): Promise<void> {
  await inParallel(plants, async (index) => {
    const plant = { id: BigInt(index + 1), name: `Scale plant ${index + 1}` };
    const payload = plantToJson(plant);
    const createdAt = Date.now();
    const deliveries = subscriptionUrls.map((url) => ({
      id: `msg_${randomUUID().replaceAll('-', '')}`,
      tenant: tenantName(0),
      endpointId: subscriptionId(url),
      eventType: 'plant.created',
      payload,
      createdAt,
    }));
    const event = subscriptionUrls.length === 0 ? { eventType: 'plant.created' as const, payload, createdAt } : undefined;
    await storage.plants.create(tenantName(0), plant, deliveries, event);
  });
}

/** When the last message arrived (`since` when none came after it). */
function lastArrival(receiver: WebhookReceiver, since: number): number {
  let last = since;
  for (const arrival of receiver.messages.values()) if (arrival.headAt > last) last = arrival.headAt;
  return last;
}

interface ScaleSetup {
  readonly label: string;
  readonly endpoints: number;
  readonly tenants: number;
  /** Operator subscriptions instead of tenant endpoints (PostgreSQL's comparison run). */
  readonly subscriptions: boolean;
}

/**
 * One scale: endpoints seeded, a backlog of `deliveries` queued to the busy tenant's ten endpoints (or ten operator subscriptions)
 * before the services start, drained (first ready line → last message); then creates over HTTP to a tenant without endpoints,
 * then as many to the busy one while their deliveries are sent (creates/s from the load, deliveries waited for after it).
 */
async function runScale(context: BenchContext, setup: ScaleSetup, deliveries: number, postgres: BenchPostgres | undefined): Promise<ScaleRun> {
  const receiver = await startReceiver();
  const name = `scale_${setup.subscriptions ? 'subs' : setup.endpoints}`;
  const dbFile = join(context.workDir, `${name}.db`);
  const schema = postgres ? await postgres.createSchema(name) : undefined;
  const instances = postgres ? 2 : 1;
  const servers: RunningServer[] = [];
  const subscriptionUrls = setup.subscriptions ? Array.from({ length: SUBSCRIPTIONS }, (_, index) => receiver.url(`/subscription-${index}`)) : [];
  const plants = Math.ceil(deliveries / SUBSCRIPTIONS);
  try {
    const storage = postgres ? await postgresStorage({ connectionString: postgres.databaseUrl, schema, poolSize: 8 }) : await sqliteStorage({ path: dbFile });
    try {
      if (!setup.subscriptions) await seedEndpoints(storage, receiver, setup.endpoints, setup.tenants);
      context.log(`  ${setup.label}: queueing ${plants * SUBSCRIPTIONS} deliveries`);
      await queuePlants(storage, plants, subscriptionUrls);
    } finally {
      await storage.close();
    }
    const config = (index: number): ServerConfig => ({
      ...(postgres ? postgres.serverConfig(schema!) : { storage: 'sqlite', dbFile }),
      tokens: TOKENS,
      logging: false,
      webhooks: subscriptionUrls.map((url) => ({ url, secret: receiver.secret })),
      env: { PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' },
      ...context.profile(`endpoint-scale-${postgres ? 'postgres' : 'sqlite'}-${name}-${index + 1}`),
    });
    const spawnedAt = performance.now();
    for (let index = 0; index < instances; index++) servers.push(await startServer(context.launcher.spec('service', config(index))));
    const readyAt = spawnedAt + Math.min(...servers.map((server) => server.readyMs));
    const queued = plants * SUBSCRIPTIONS;
    await receiver.waitForMessages(queued, { timeoutMs: 600_000 });
    const seconds = (lastArrival(receiver, readyAt) - readyAt) / 1000;
    context.log(`  ${setup.label}: ${queued} deliveries in ${seconds.toFixed(2)} s → ${(queued / seconds).toFixed(0)}/s`);

    const creates = async (token: string, base: number) => {
      const share = Math.ceil(plants / instances);
      const loads = await Promise.all(
        servers.map((server, at) => {
          let id = base + at * share;
          return runLoad({
            url: server.url,
            connections: Math.max(1, Math.round(context.options.connections / instances)),
            amount: share,
            headers: HEADERS(token),
            next: () => ({ method: 'POST', path: '/plants', body: `{"id":${id},"name":"Scale plant ${id++}"}` }),
          });
        }),
      );
      const answered = loads.reduce((sum, load) => sum + (load.statuses['200'] ?? 0), 0);
      return { creates: answered, perSecond: answered / Math.max(...loads.map((load) => load.elapsedS)) };
    };
    // Subscriptions get every tenant's plants: the comparison run measures their deliveries only.
    if (setup.subscriptions) return { ...setup, deliveries: queued, seconds, perSecond: queued / seconds };
    const none = await creates(NONE_TOKEN, NONE_BASE);
    const fanned = await creates(BUSY_TOKEN, CREATE_BASE);
    await receiver.waitForMessages(queued + fanned.creates * (setup.endpoints / setup.tenants), { timeoutMs: 600_000 });
    context.log(
      `  ${setup.label}: creates/s without endpoints ${none.perSecond.toFixed(0)}, fanning out to ten while delivering ${fanned.perSecond.toFixed(0)}`,
    );
    return { ...setup, deliveries: queued, seconds, perSecond: queued / seconds, createsNone: none.perSecond, createsFanned: fanned.perSecond };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver.close();
    if (schema !== undefined) await postgres!.dropSchema(schema);
  }
}

/** Every scale on one storage, and on PostgreSQL the same backlog to operator subscriptions. */
async function runStorage(context: BenchContext, deliveries: number, postgres: BenchPostgres | undefined) {
  const scales: ScaleRun[] = [];
  for (const { endpoints, tenants } of SCALES) {
    const label = `${postgres ? 'PostgreSQL' : 'SQLite'}, ${endpoints} endpoints over ${tenants} tenants`;
    scales.push(await runScale(context, { label, endpoints, tenants, subscriptions: false }, deliveries, postgres));
  }
  const subscriptions = postgres
    ? await runScale(
        context,
        { label: `PostgreSQL, ${SUBSCRIPTIONS} operator subscriptions`, endpoints: 0, tenants: 0, subscriptions: true },
        deliveries,
        postgres,
      )
    : undefined;
  return { storage: postgres ? ('postgres' as const) : ('sqlite' as const), instances: postgres ? 2 : 1, scales, subscriptions };
}

/**
 * Whether delivery and fan-out cost grows with quiet tenants: 10, 1,000 and 5,000 endpoints over 1, 100 and 500 tenants (ten
 * each), the backlog and the creates all in one tenant. One service on SQLite, two on one PostgreSQL schema (skipped when
 * unreachable), where the same backlog also goes to ten operator subscriptions for comparison.
 */
export async function runEndpointScaleScenario(context: BenchContext) {
  const deliveries = context.options.endpointDeliveries;
  const sqlite = await runStorage(context, deliveries, undefined);
  const opened = await openBenchPostgres(context.options.dbPool);
  if ('unreachable' in opened) {
    context.log(`  PostgreSQL unreachable (${opened.unreachable}): SQLite only`);
    return { deliveries, runs: [sqlite] };
  }
  try {
    return { deliveries, runs: [sqlite, await runStorage(context, deliveries, opened.postgres)] };
  } finally {
    await opened.postgres.dropAll();
  }
}

const int = (value: number | undefined) => (value !== undefined && Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–');
const verdict = (value: number, min: number) => `${value.toFixed(2)}x ${value >= min ? '✅' : '❌'}`;

/** The report's section: a row per storage and scale, and the targets (report only). */
export function endpointScaleSection(result: EndpointScaleResult | undefined): string {
  if (!result) return '';
  const rows: string[] = [];
  const targets: string[] = [];
  for (const run of result.runs) {
    const where = run.storage === 'postgres' ? `PostgreSQL (${run.instances} instances)` : 'SQLite';
    for (const scale of run.scales) {
      const ratio = (scale.createsFanned ?? Number.NaN) / (scale.createsNone ?? Number.NaN);
      rows.push(
        `| ${where} | ${int(scale.endpoints)} over ${int(scale.tenants)} | **${int(scale.perSecond)}** | ${int(scale.createsNone)} | **${int(scale.createsFanned)}** | ${ratio.toFixed(2)}x |`,
      );
    }
    if (run.subscriptions) rows.push(`| ${where} | ${SUBSCRIPTIONS} operator subscriptions | **${int(run.subscriptions.perSecond)}** | – | – | – |`);
    const [small, , large] = run.scales;
    if (small && large) targets.push(`- ${where}: deliveries/s at 5,000 endpoints ≥ 0.9x of 10: ${verdict(large.perSecond / small.perSecond, 0.9)}`);
    if (run.subscriptions && large) {
      targets.push(
        `- ${where}: tenant endpoints (5,000) ≥ 0.9x of operator subscriptions' deliveries/s: ${verdict(large.perSecond / run.subscriptions.perSecond, 0.9)}`,
      );
    }
    if (small?.createsFanned !== undefined && small.createsNone !== undefined) {
      targets.push(
        `- ${where}: a create fanning out to 10 endpoints ≥ 0.5x the creates/s of one to none: ${verdict(small.createsFanned / small.createsNone, 0.5)}`,
      );
    }
  }
  return `## Endpoint scale (${int(result.deliveries)} deliveries per run, all to one tenant's ten endpoints)

| storage | endpoints over tenants | deliveries/s (backlog) | creates/s, no endpoint | creates/s, ten endpoints while delivering | ratio |
|---|---|---:|---:|---:|---:|
${rows.join('\n')}

Targets (report only):

${targets.join('\n')}`;
}
