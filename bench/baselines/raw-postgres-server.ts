// Raw PostgreSQL baseline: node:http + pg, one pool of --db-pool connections,
// the storage adapter's own SQL (one statement per create: plant, outbox rows,
// fan-out to tenant endpoints and NOTIFY), int8 read as bigint.
// Run: node raw-postgres-server.js serve --port 0 --database-url URL --db-schema S --db-pool N --tokens t=tenant
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { endpointId } from './raw-endpoint-id.js';
import { rawServe, type ClosableStore, type RawServeFlags } from './raw-serve.js';
import { plantJson } from './raw-plant-json.js';
import type { RawDelivery, RawPlant } from './raw-store.js';

// The slice of pg used here (resolved from the repository at run time:
// this file runs transpiled from a temporary folder).
interface QueryResult<Row> {
  rows: Row[];
  rowCount: number | null;
}
interface Pool {
  query<Row>(text: string, values: unknown[]): Promise<QueryResult<Row>>;
  on(event: 'error' | 'connect', listener: (value: { on(event: 'error', listener: () => void): void }) => void): void;
  end(): Promise<void>;
}
interface PgModule {
  Pool: new (config: Record<string, unknown>) => Pool;
  types: { getTypeParser(oid: number, format?: string): unknown };
}

/** The statements of @plant-store/storage-postgres (dist/plant-queries.js and dist/tables.js), taken as they are. */
interface AdapterSql {
  createPlantSql(tables: unknown): string;
  selectPlantSql(tables: unknown): string;
  deletePlantSql(tables: unknown): string;
  listPlantsSql(tables: unknown): string;
  listTaggedPlantsSql(tables: unknown): string;
  tablesIn(schema: string): unknown;
}

interface PlantRow {
  id: bigint;
  name: string;
  tag: string | null;
}

const INT8_OID = 20;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** The channel the adapter NOTIFYs on (outbox-channel.ts); the payload is the schema. */
const OUTBOX_CHANNEL = 'plant_store_outbox';

async function loadDependencies(): Promise<{ pg: PgModule; sql: AdapterSql }> {
  const adapterDir = join(process.cwd(), 'packages/storage-postgres');
  const pg = createRequire(join(adapterDir, 'package.json'))('pg') as PgModule;
  const dist = (file: string) => import(pathToFileURL(join(adapterDir, 'dist', file)).href);
  try {
    const [queries, tables] = await Promise.all([dist('plant-queries.js'), dist('tables.js')]);
    return { pg, sql: { ...queries, ...tables } as AdapterSql };
  } catch (error) {
    throw new Error(`cannot load the adapter's SQL from ${adapterDir}/dist (run \`pnpm -r build\` first): ${String(error)}`);
  }
}

const toPlant = (row: PlantRow): RawPlant => (row.tag === null ? { id: row.id, name: row.name } : { id: row.id, name: row.name, tag: row.tag });

/**
 * The pool settings of the adapter (postgres-connection.ts): the same
 * timeouts, keep-alive and int8 parser, so both pay for the same driver
 * work per query; only the layers above the driver differ. One difference
 * is kept on purpose: this baseline uses pg's own `query_timeout` and
 * `pool.query`, as a plain pg server would, where the adapter's query
 * runner keeps the deadline itself and uses pg's callback form (see
 * answer-deadlines.ts); on the bench's concurrent short reads and writes
 * neither promotes rows, so neither side gains by it.
 */
function openPool(pg: PgModule, flags: RawServeFlags): Pool {
  const types = {
    getTypeParser: (oid: number, format?: string) => (oid === INT8_OID && format !== 'binary' ? BigInt : pg.types.getTypeParser(oid, format)),
  };
  const pool = new pg.Pool({
    connectionString: flags.databaseUrl,
    max: flags.dbPool,
    connectionTimeoutMillis: 5000,
    statement_timeout: 10_000,
    query_timeout: 11_000,
    keepAlive: true,
    application_name: 'plant-store-raw-baseline',
    types,
  });
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** The deliveries as six parallel arrays, the parameters the adapter's `unnest` turns back into rows. */
function deliveryColumns(deliveries: readonly RawDelivery[], endpoints: Map<string, string>): unknown[][] {
  return [
    deliveries.map((d) => d.id),
    deliveries.map((d) => d.tenant),
    deliveries.map((d) => endpoints.get(d.endpoint) ?? endpointId(d.endpoint)),
    deliveries.map((d) => d.eventType),
    deliveries.map((d) => d.payload),
    deliveries.map((d) => d.createdAt),
  ];
}

/**
 * The store over an already migrated schema (the harness migrates every
 * schema with the adapter's migrations, so both contestants have the same
 * tables and indexes); fails at start when its tables are missing.
 */
async function rawPostgresStore(flags: RawServeFlags): Promise<ClosableStore> {
  if (!flags.databaseUrl) throw new Error('--database-url is required');
  const { pg, sql } = await loadDependencies();
  const pool = openPool(pg, flags);
  const schema = flags.dbSchema;
  const tables = sql.tablesIn(schema);
  const text = {
    create: sql.createPlantSql(tables),
    select: sql.selectPlantSql(tables),
    delete: sql.deletePlantSql(tables),
    list: sql.listPlantsSql(tables),
    listTagged: sql.listTaggedPlantsSql(tables),
  };
  const [found] = (await pool.query<{ plants: string | null }>('SELECT to_regclass($1) AS plants', [`"${schema}".plants`])).rows;
  if (!found?.plants) throw new Error(`schema ${schema} has no plants table: migrate it with the storage adapter first`);
  const endpoints = new Map(flags.webhookUrls.map((url) => [url, endpointId(url)]));

  const get = async (tenant: string, id: bigint) => {
    const [row] = (await pool.query<PlantRow>(text.select, [tenant, id])).rows;
    return row && toPlant(row);
  };
  return {
    async create(tenant, plant, deliveries) {
      const event = ['plant.created', plantJson(plant), Date.now()];
      // No trace context: NULL traceparents for the deliveries and for the event.
      const traceparents = [deliveries.map(() => null), null];
      const parameters = [tenant, plant.id, plant.name, plant.tag ?? null, ...deliveryColumns(deliveries, endpoints), OUTBOX_CHANNEL, schema, ...event, ...traceparents];
      const [row] = (await pool.query<{ created: boolean }>(text.create, parameters)).rows;
      return row?.created ? undefined : get(tenant, plant.id);
    },
    get,
    async list(tenant, after, tags, limit) {
      if (after === INT64_MAX || limit < 1) return [];
      const low = after === undefined ? INT64_MIN : after + 1n;
      const rows = tags
        ? (await pool.query<PlantRow>(text.listTagged, [tenant, [...new Set(tags)], low, INT64_MAX, limit])).rows
        : (await pool.query<PlantRow>(text.list, [tenant, low, INT64_MAX, limit])).rows;
      return rows.map(toPlant);
    },
    async delete(tenant, id) {
      const event = ['plant.deleted', `{"id":${id}}`, Date.now()];
      // The last parameter is the event's traceparent: none.
      const [row] = (await pool.query<{ deleted: boolean }>(text.delete, [tenant, id, ...event, OUTBOX_CHANNEL, schema, null])).rows;
      return row?.deleted === true;
    },
    close: () => pool.end(),
  };
}

await rawServe('raw-postgres baseline', rawPostgresStore);
