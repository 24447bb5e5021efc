import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { createRawListener } from './raw-listener.js';
import type { RawStore } from './raw-store.js';

/** Flags the baselines accept: the subset of the service's `serve` flags the benchmark passes to both. */
export interface RawServeFlags {
  readonly port: number;
  readonly host: string;
  readonly db: string | undefined;
  /** PostgreSQL baseline: `--database-url`, `--db-schema`, `--db-pool` (the service's flags and defaults). */
  readonly databaseUrl: string | undefined;
  readonly dbSchema: string;
  readonly dbPool: number;
  readonly webhookUrls: readonly string[];
}

/**
 * Starts a baseline: parses the service's flags (`--port --host --db
 * --database-url --db-schema --db-pool --tokens token=tenant,… --webhooks
 * JSON --max-body --log-level`, others ignored), opens the store (a
 * PostgreSQL one asynchronously; a failure exits with its message), listens
 * with the service's default timeouts and prints one ready line with the
 * URL, as the service does. SIGTERM/SIGINT close it.
 */
export type ClosableStore = RawStore & { close(): void | Promise<void> };

export async function rawServe(name: string, openStore: (flags: RawServeFlags) => ClosableStore | Promise<ClosableStore>): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      db: { type: 'string' },
      'database-url': { type: 'string' },
      'db-schema': { type: 'string', default: 'public' },
      'db-pool': { type: 'string', default: '10' },
      tokens: { type: 'string', default: '' },
      webhooks: { type: 'string', default: '[]' },
      'max-body': { type: 'string', default: '65536' },
      'log-level': { type: 'string', default: 'info' },
      // Accepted so both get the same command line; a baseline has one storage and sends no webhooks.
      storage: { type: 'string' },
      'webhook-retry': { type: 'string' },
      'webhook-timeout': { type: 'string' },
      metrics: { type: 'string' },
    },
    allowPositionals: true,
  });
  const tenantsByDigest = new Map<string, string>();
  for (const entry of values.tokens.split(',').filter(Boolean)) {
    const at = entry.indexOf('=');
    tenantsByDigest.set(createHash('sha256').update(entry.slice(0, at), 'utf8').digest('hex'), entry.slice(at + 1));
  }
  const webhookUrls = (JSON.parse(values.webhooks) as { url: string }[]).map((subscription) => subscription.url);
  const flags: RawServeFlags = {
    port: Number(values.port),
    host: values.host,
    db: values.db,
    databaseUrl: values['database-url'],
    dbSchema: values['db-schema'],
    dbPool: Number(values['db-pool']),
    webhookUrls,
  };
  let store: ClosableStore;
  try {
    store = await openStore(flags);
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const server = createServer(
    createRawListener({
      store,
      tenantsByDigest,
      webhookUrls,
      maxBody: Number(values['max-body']),
      log: values['log-level'] !== 'warn' && values['log-level'] !== 'error',
    }),
  );
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.listen(flags.port, flags.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : flags.port;
    process.stdout.write(`${name} listening on http://${flags.host}:${port}\n`);
  });
  const stop = (): void => {
    server.close(() => {
      void Promise.resolve(store.close()).finally(() => process.exit(0));
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
