import { DEFAULT_ATTEMPT_TIMEOUT_MS, DEFAULT_MAX_ENDPOINTS_PER_TENANT, DEFAULT_RETRY_SCHEDULE, DEFAULT_SECRET_OVERLAP_MS } from '@plant-store/core';
import { DEFAULT_MAX_BODY_BYTES } from '@plant-store/http-node';
import { formatDuration } from './parse-duration.js';

/**
 * Every setting of `plant-store serve`: its environment variable, its flag
 * (flags win), its default as the user would type it, and one line of help.
 * This table is the single source for argument parsing, `--help` and the
 * names in configuration errors.
 */
export const SETTINGS = {
  port: { env: 'PORT', flag: 'port', default: '8080', help: 'TCP port to listen on (0 = any free port)' },
  host: { env: 'HOST', flag: 'host', default: '127.0.0.1', help: 'address to listen on' },
  storage: { env: 'PLANT_STORE_STORAGE', flag: 'storage', default: 'sqlite', help: 'sqlite, postgres or memory' },
  db: { env: 'PLANT_STORE_DB', flag: 'db', default: './data/plant-store.db', help: 'SQLite file (its folder is created)' },
  databaseUrl: {
    env: 'PLANT_STORE_DATABASE_URL',
    flag: 'database-url',
    default: undefined,
    help: 'PostgreSQL connection URL (postgres://user:password@host:5432/db), for --storage postgres',
  },
  dbPool: { env: 'PLANT_STORE_DB_POOL', flag: 'db-pool', default: '10', help: 'PostgreSQL connections per instance' },
  dbSchema: {
    env: 'PLANT_STORE_DB_SCHEMA',
    flag: 'db-schema',
    default: 'public',
    help: 'PostgreSQL schema of the tables (serve creates or migrates it; other commands refuse one missing or out of date)',
  },
  tokens: {
    env: 'PLANT_STORE_TOKENS',
    flag: 'tokens',
    default: undefined,
    help: 'comma-separated token=tenant or sha256:<64 hex>=tenant entries (all four scopes)',
  },
  tokensFile: {
    env: 'PLANT_STORE_TOKENS_FILE',
    flag: 'tokens-file',
    default: undefined,
    help: 'JSON array of {token | sha256, tenant, subject?, scopes?}',
  },
  jwtJwksUrl: {
    env: 'PLANT_STORE_JWT_JWKS_URL',
    flag: 'jwt-jwks-url',
    default: undefined,
    help: 'accept JWT bearer tokens signed by the keys at this JWKS URL',
  },
  jwtJwksFile: { env: 'PLANT_STORE_JWT_JWKS_FILE', flag: 'jwt-jwks-file', default: undefined, help: 'the same, keys from a JWKS file' },
  jwtIssuer: { env: 'PLANT_STORE_JWT_ISSUER', flag: 'jwt-issuer', default: undefined, help: 'required iss of JWTs (needed with JWT)' },
  jwtAudience: { env: 'PLANT_STORE_JWT_AUDIENCE', flag: 'jwt-audience', default: undefined, help: 'required aud of JWTs (needed with JWT)' },
  jwtTenantClaim: { env: 'PLANT_STORE_JWT_TENANT_CLAIM', flag: 'jwt-tenant-claim', default: 'tenant', help: 'JWT claim that names the tenant' },
  webhooks: { env: 'PLANT_STORE_WEBHOOKS', flag: 'webhooks', default: undefined, help: 'JSON array of {url, secret, tenant?, id?, eventTypes?}' },
  webhooksFile: { env: 'PLANT_STORE_WEBHOOKS_FILE', flag: 'webhooks-file', default: undefined, help: 'the same, from a file' },
  webhookRetry: {
    env: 'PLANT_STORE_WEBHOOK_RETRY',
    flag: 'webhook-retry',
    // Core's defaults, spelled as a user would type them: the rules are written once.
    default: DEFAULT_RETRY_SCHEDULE.map(formatDuration).join(','),
    help: 'delays between webhook attempts (ms, s, m, h, d; "none" = no retry)',
  },
  webhookTimeout: {
    env: 'PLANT_STORE_WEBHOOK_TIMEOUT',
    flag: 'webhook-timeout',
    default: formatDuration(DEFAULT_ATTEMPT_TIMEOUT_MS),
    help: 'per webhook attempt',
  },
  webhookSecretOverlap: {
    env: 'PLANT_STORE_WEBHOOK_SECRET_OVERLAP',
    flag: 'webhook-secret-overlap',
    default: formatDuration(DEFAULT_SECRET_OVERLAP_MS),
    help: "after a tenant rotates an endpoint's secret, how long the previous one still signs",
  },
  webhookDisableAfter: {
    env: 'PLANT_STORE_WEBHOOK_DISABLE_AFTER',
    flag: 'webhook-disable-after',
    default: '5d',
    help: 'disable a tenant endpoint whose attempts have all failed this long (with a message exhausted)',
  },
  webhookRetention: {
    env: 'PLANT_STORE_WEBHOOK_RETENTION',
    flag: 'webhook-retention',
    default: '30d',
    help: 'delete delivered and failed webhook deliveries (with their attempts) once finished this long ago; "off" keeps them',
  },
  webhookAllowPrivate: {
    env: 'PLANT_STORE_WEBHOOK_ALLOW_PRIVATE',
    flag: 'webhook-allow-private',
    default: 'false',
    help: 'true lets tenant endpoints reach loopback, private and link-local addresses (tests, internal deployments)',
  },
  webhookMaxEndpoints: {
    env: 'PLANT_STORE_WEBHOOK_MAX_ENDPOINTS',
    flag: 'webhook-max-endpoints',
    default: String(DEFAULT_MAX_ENDPOINTS_PER_TENANT),
    help: 'most webhook endpoints one tenant may have (creating one more is a 422); also bounds the deliveries one plant write queues',
  },
  maxBody: { env: 'PLANT_STORE_MAX_BODY', flag: 'max-body', default: String(DEFAULT_MAX_BODY_BYTES), help: 'largest accepted request body, in bytes' },
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
  portal: {
    env: 'PLANT_STORE_PORTAL',
    flag: 'portal',
    default: 'on',
    help: 'on or off: the tenant webhook portal page at GET /portal',
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
