/**
 * Every setting of `plant-store serve`: its environment variable, its flag
 * (flags win), its default as the user would type it, and one line of help.
 * This table is the single source for argument parsing, `--help` and the
 * names in configuration errors.
 */
export const SETTINGS = {
  port: { env: 'PORT', flag: 'port', default: '8080', help: 'TCP port to listen on (0 = any free port)' },
  host: { env: 'HOST', flag: 'host', default: '127.0.0.1', help: 'address to listen on' },
  storage: { env: 'PLANT_STORE_STORAGE', flag: 'storage', default: 'sqlite', help: 'sqlite or memory' },
  db: { env: 'PLANT_STORE_DB', flag: 'db', default: './data/plant-store.db', help: 'SQLite file (its folder is created)' },
  tokens: {
    env: 'PLANT_STORE_TOKENS',
    flag: 'tokens',
    default: undefined,
    help: 'comma-separated token=tenant or sha256:<64 hex>=tenant entries (both scopes)',
  },
  tokensFile: {
    env: 'PLANT_STORE_TOKENS_FILE',
    flag: 'tokens-file',
    default: undefined,
    help: 'JSON array of {token | sha256, tenant, subject?, scopes?}',
  },
  webhooks: { env: 'PLANT_STORE_WEBHOOKS', flag: 'webhooks', default: undefined, help: 'JSON array of {url, secret, tenant?}' },
  webhooksFile: { env: 'PLANT_STORE_WEBHOOKS_FILE', flag: 'webhooks-file', default: undefined, help: 'the same, from a file' },
  webhookRetry: {
    env: 'PLANT_STORE_WEBHOOK_RETRY',
    flag: 'webhook-retry',
    default: '5s,5m,30m,2h,5h,10h,10h',
    help: 'delays between webhook attempts (ms, s, m, h; "none" = no retry)',
  },
  webhookTimeout: { env: 'PLANT_STORE_WEBHOOK_TIMEOUT', flag: 'webhook-timeout', default: '15s', help: 'per webhook attempt' },
  maxBody: { env: 'PLANT_STORE_MAX_BODY', flag: 'max-body', default: '65536', help: 'largest accepted request body, in bytes' },
  headersTimeout: {
    env: 'PLANT_STORE_HEADERS_TIMEOUT',
    flag: 'headers-timeout',
    default: '10s',
    help: 'time a client has to send the request headers',
  },
  requestTimeout: {
    env: 'PLANT_STORE_REQUEST_TIMEOUT',
    flag: 'request-timeout',
    default: '30s',
    help: 'time a client has to send the whole request',
  },
  keepAliveTimeout: {
    env: 'PLANT_STORE_KEEP_ALIVE_TIMEOUT',
    flag: 'keep-alive-timeout',
    default: '5s',
    help: 'how long an idle keep-alive connection stays open',
  },
  shutdownTimeout: {
    env: 'PLANT_STORE_SHUTDOWN_TIMEOUT',
    flag: 'shutdown-timeout',
    default: '7s',
    help: 'on SIGTERM/SIGINT, how long in-flight requests may take before connections are cut',
  },
  logLevel: { env: 'PLANT_STORE_LOG_LEVEL', flag: 'log-level', default: 'info', help: 'debug, info, warn or error' },
  metrics: {
    env: 'PLANT_STORE_METRICS',
    flag: 'metrics',
    default: 'on',
    help: 'on or off: GET /metrics (Prometheus, no authentication) and the request counting behind it',
  },
} as const satisfies Record<string, SettingDefinition>;

export interface SettingDefinition {
  readonly env: string;
  readonly flag: string;
  readonly default: string | undefined;
  readonly help: string;
}

export type SettingKey = keyof typeof SETTINGS;

/** How errors name a setting: the variable and its flag, e.g. `PLANT_STORE_MAX_BODY (--max-body)`. */
export function settingName(key: SettingKey): string {
  const setting: SettingDefinition = SETTINGS[key];
  return `${setting.env} (--${setting.flag})`;
}
