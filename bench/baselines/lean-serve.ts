import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { createLeanListener, type LeanStore } from './lean-listener.js';

/** What a lean store is opened with: the SQLite file and the subscription URLs (one outbox row each per create). */
export interface LeanServeFlags {
  readonly db: string | undefined;
  readonly webhookUrls: readonly string[];
}

/**
 * Starts a lean baseline with the service's command line (`--port --host
 * --db --tokens token=tenant,… --webhooks JSON --log-level`, others
 * ignored) and prints the ready line; SIGTERM/SIGINT close it.
 */
export function leanServe(name: string, open: (flags: LeanServeFlags) => LeanStore & { close(): void }): void {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      db: { type: 'string' },
      tokens: { type: 'string', default: '' },
      webhooks: { type: 'string', default: '[]' },
      'log-level': { type: 'string', default: 'info' },
      storage: { type: 'string' },
      'webhook-retry': { type: 'string' },
      'webhook-timeout': { type: 'string' },
      metrics: { type: 'string' },
      'max-body': { type: 'string' },
    },
    allowPositionals: true,
  });
  const tenants = new Map<string, string>();
  for (const entry of values.tokens.split(',').filter(Boolean)) {
    const at = entry.indexOf('=');
    tenants.set(entry.slice(0, at), entry.slice(at + 1));
  }
  const webhookUrls = (JSON.parse(values.webhooks) as { url: string }[]).map((subscription) => subscription.url);
  const store = open({ db: values.db, webhookUrls });
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
    server.close(() => {
      store.close();
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
