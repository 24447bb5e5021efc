import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerSpec } from './server-process.js';
import type { AnyStorageKind } from '../../test/support/storage-kind.js';

/** `baseline`: the lean server, the least a hand-written `node:http` server does for the same answers. */
export type Contestant = 'service' | 'baseline';
/** How the service is started: the built CLI, the TypeScript source through tsx, or (self-test of the harness) a baseline. */
export type ServiceFrom = 'dist' | 'source' | 'baseline';

/** What a benchmarked server is configured with; both contestants get the same flags. */
export interface ServerConfig {
  readonly storage: AnyStorageKind;
  /** SQLite file (sqlite only). */
  readonly dbFile?: string;
  /** PostgreSQL only: `--database-url`, `--db-schema`, `--db-pool`. */
  readonly postgres?: { readonly databaseUrl: string; readonly schema: string; readonly pool: number };
  /** One log line per request (`--log-level info`, the default) or none (`--log-level warn`). */
  readonly logging?: boolean;
  /** token → tenant. */
  readonly tokens: Readonly<Record<string, string>>;
  readonly webhooks?: readonly { readonly url: string; readonly secret: string }[];
  readonly webhookTimeout?: string;
  /** `--webhook-retention` (service only: the baselines keep nothing to prune). */
  readonly webhookRetention?: string;
  /** Extra node flags (e.g. `--cpu-prof`). */
  readonly nodeFlags?: readonly string[];
  /** Extra environment of the service (e.g. the `OTEL_*` variables that turn tracing on). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface LauncherOptions {
  readonly repoRoot: string;
  readonly serviceFrom: ServiceFrom;
  /** Folder holding the transpiled baselines (lean-sqlite-server.js, …). */
  readonly baselineDir: string;
  /** The CPU every server (service and baselines alike) is pinned to; unpinned when not given. */
  readonly serverCpu?: number;
}

/** Builds the command lines of the service and the baselines. */
export interface ServerLauncher {
  spec(contestant: Contestant, config: ServerConfig): ServerSpec;
}

function serveFlags(config: ServerConfig): string[] {
  const logLevel = config.logging === false ? 'warn' : 'info';
  const flags = ['serve', '--port', '0', '--host', '127.0.0.1', '--storage', config.storage, '--log-level', logLevel];
  if (config.storage === 'sqlite') flags.push('--db', config.dbFile ?? 'bench.db');
  if (config.storage === 'postgres') {
    if (!config.postgres) throw new Error('a postgres server needs its database settings');
    const { databaseUrl, schema, pool } = config.postgres;
    flags.push('--database-url', databaseUrl, '--db-schema', schema, '--db-pool', String(pool));
  }
  flags.push(
    '--tokens',
    Object.entries(config.tokens)
      .map(([token, tenant]) => `${token}=${tenant}`)
      .join(','),
  );
  if (config.webhooks?.length) flags.push('--webhooks', JSON.stringify(config.webhooks));
  if (config.webhookTimeout) flags.push('--webhook-timeout', config.webhookTimeout);
  if (config.webhookRetention) flags.push('--webhook-retention', config.webhookRetention);
  return flags;
}

export function createServerLauncher(options: LauncherOptions): ServerLauncher {
  const dist = join(options.repoRoot, 'packages/server/dist/cli.js');
  const source = join(options.repoRoot, 'packages/server/src/cli.ts');
  if (options.serviceFrom === 'dist' && !existsSync(dist)) {
    throw new Error(`${dist} is missing: run \`pnpm -r build\` first (or pass --service source)`);
  }
  // Production mode for both: the service must then refuse to start without tokens, which we give.
  const env = { NODE_ENV: 'production' };
  const cpu = options.serverCpu === undefined ? {} : { cpu: options.serverCpu };
  return {
    spec(contestant, config) {
      const label = `${contestant} (${config.storage}${config.logging === false ? ', logging off' : ''})`;
      const nodeFlags = config.nodeFlags ?? [];
      if (contestant === 'baseline' || options.serviceFrom === 'baseline') {
        const baseline = join(options.baselineDir, `lean-${config.storage}-server.js`);
        return { label, env, ...cpu, args: [...nodeFlags, baseline, ...serveFlags(config)] };
      }
      const entry = options.serviceFrom === 'dist' ? [dist] : ['--conditions=source', '--import', 'tsx', source];
      return { label, env: { ...env, ...config.env }, ...cpu, args: [...nodeFlags, ...entry, ...serveFlags(config)] };
    },
  };
}
