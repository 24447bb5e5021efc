import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { createLeanListener, type LeanStore } from './lean-listener.js';

/** What a lean store is opened with: its SQLite file or PostgreSQL schema, and the subscription URLs (one outbox row each per create). */
export interface LeanServeFlags {
  readonly db: string | undefined;
  readonly databaseUrl: string | undefined;
  readonly dbSchema: string;
  readonly dbPool: number;
  readonly webhookUrls: readonly string[];
}

/**
 * Starts a lean baseline with the service's command line (`--port --host
 * --db --tokens token=tenant,… --webhooks JSON --log-level`, others
 * ignored) and prints the ready line; SIGTERM/SIGINT close it.
 */
export async function leanServe(name: string, open: (flags: LeanServeFlags) => Promise<LeanStore & { close(): unknown }>): Promise<void> {
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
      'log-level': { type: 'string', default: 'info' },
      // Given to both contestants, meaningless here.
      storage: { type: 'string' },
      'webhook-timeout': { type: 'string' },
    },
    allowPositionals: true,
  });
  const tenants = new Map<string, string>();
  for (const entry of values.tokens.split(',').filter(Boolean)) {
    const at = entry.indexOf('=');
    tenants.set(entry.slice(0, at), entry.slice(at + 1));
  }
  const webhookUrls = (JSON.parse(values.webhooks) as { url: string }[]).map((subscription) => subscription.url);
  const store = await open({
    db: values.db,
    databaseUrl: values['database-url'],
    dbSchema: values['db-schema'],
    dbPool: Number(values['db-pool']),
    webhookUrls,
  });
  const log = values['log-level'] !== 'warn' && values['log-level'] !== 'error';
  const server = createServer(createLeanListener({ store, tenants, log }));
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.listen(Number(values.port), values.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : values.port;
    process.stdout.write(`${name} listening on http://${values.host}:${port}\n`);
  });
  const stop = (): void => {
    server.close(async () => {
      await store.close();
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
