import {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_MAX_ENDPOINTS_PER_TENANT,
  DEFAULT_PARKED_LIMIT,
  DEFAULT_RETRY_SCHEDULE,
  DEFAULT_SECRET_OVERLAP_MS,
} from '@plant-store/core';
import { DEFAULT_MAX_BODY_BYTES } from '@plant-store/http-node';
import { formatDuration } from './parse-duration.js';

/** Each setting's default as the user would type it and one line of help; `env` only where it is not `PLANT_STORE_<KEY>`. */
const DEFINITIONS = {
  port: { env: 'PORT', default: '8080', help: 'TCP port to listen on (0 = any free port)' },
  host: { env: 'HOST', default: '127.0.0.1', help: 'address to listen on' },
  storage: { default: 'sqlite', help: 'sqlite, postgres or memory' },
  db: { default: './data/plant-store.db', help: 'SQLite file (its folder is created)' },
  databaseUrl: { default: undefined, help: 'PostgreSQL connection URL (postgres://user:password@host:5432/db), for --storage postgres' },
  dbPool: { default: '10', help: 'PostgreSQL connections per instance' },
  dbSchema: { default: 'public', help: 'PostgreSQL schema of the tables (serve creates or migrates it; other commands refuse one missing or out of date)' },
  tokens: { default: undefined, help: 'comma-separated token=tenant or sha256:<64 hex>=tenant entries (all four scopes)' },
  tokensFile: { default: undefined, help: 'JSON array of {token | sha256, tenant, subject?, scopes?}' },
  jwtJwksUrl: { default: undefined, help: 'accept JWT bearer tokens signed by the keys at this JWKS URL' },
  jwtJwksFile: { default: undefined, help: 'the same, keys from a JWKS file' },
  jwtIssuer: { default: undefined, help: 'required iss of JWTs (needed with JWT)' },
  jwtAudience: { default: undefined, help: 'required aud of JWTs (needed with JWT)' },
  jwtTenantClaim: { default: 'tenant', help: 'JWT claim that names the tenant' },
  webhooks: { default: undefined, help: 'JSON array of {url, secret, tenant?, id?, eventTypes?}' },
  webhooksFile: { default: undefined, help: 'the same, from a file' },
  // Core's defaults, spelled as a user would type them: the rules are written once.
  webhookRetry: { default: DEFAULT_RETRY_SCHEDULE.map(formatDuration).join(','), help: 'delays between webhook attempts (ms, s, m, h, d; "none" = no retry)' },
  webhookTimeout: { default: formatDuration(DEFAULT_ATTEMPT_TIMEOUT_MS), help: 'per webhook attempt' },
  webhookSecretOverlap: {
    default: formatDuration(DEFAULT_SECRET_OVERLAP_MS),
    help: "after a tenant rotates an endpoint's secret, how long the previous one still signs",
  },
  webhookDisableAfter: { default: '5d', help: 'disable a tenant endpoint whose attempts have all failed this long (with a message exhausted)' },
  webhookParkedLimit: {
    default: String(DEFAULT_PARKED_LIMIT),
    help: 'most messages kept (parked) for one disabled webhook endpoint, replayed or discarded when it is enabled; past it the oldest are dropped and counted (0 keeps none)',
  },
  webhookRetention: {
    default: '30d',
    help: 'delete delivered, failed and parked webhook deliveries (with their attempts) once finished (or parked) this long ago; "off" keeps them',
  },
  webhookAllowPrivate: { default: 'false', help: 'true lets tenant endpoints reach loopback, private and link-local addresses (tests, internal deployments)' },
  webhookProxy: {
    default: undefined,
    help: 'send webhook attempts through this HTTP proxy (http://[user:password@]host:port, CONNECT tunnels), or "env" for the one HTTPS_PROXY/HTTP_PROXY name, NO_PROXY honoured',
  },
  webhookDestinationKinds: {
    default: 'http',
    help: 'comma-separated destination kinds tenant endpoints may name: http, amqp, nats, redis, mqtt (operator subscriptions may name any)',
  },
  webhookMaxEndpoints: {
    default: String(DEFAULT_MAX_ENDPOINTS_PER_TENANT),
    help: 'most webhook endpoints one tenant may have (creating one more is a 422); also bounds the deliveries one plant write queues',
  },
  maxBody: { default: String(DEFAULT_MAX_BODY_BYTES), help: 'largest accepted request body, in bytes' },
  headersTimeout: { default: '10s', help: 'time a client has to send the request headers' },
  requestTimeout: { default: '30s', help: 'time a client has to send the whole request' },
  keepAliveTimeout: { default: '5s', help: 'how long an idle keep-alive connection stays open' },
  shutdownTimeout: { default: '7s', help: 'on SIGTERM/SIGINT, how long in-flight requests may take before connections are cut' },
  logLevel: { default: 'info', help: 'debug, info, warn or error' },
  metrics: { default: 'on', help: 'on or off: GET /metrics (Prometheus, no authentication) and the request counting behind it' },
  portal: { default: 'on', help: 'on or off: the tenant webhook portal page at GET /portal' },
} as const satisfies Record<string, { readonly env?: string; readonly default: string | undefined; readonly help: string }>;

export interface SettingDefinition {
  readonly env: string;
  readonly flag: string;
  readonly default: string | undefined;
  readonly help: string;
}

export type SettingKey = keyof typeof DEFINITIONS;

/** Every setting of `plant-store serve` (`maxBody`: `PLANT_STORE_MAX_BODY`, `--max-body`): one source for parsing, help, docs and errors. */
export const SETTINGS = Object.fromEntries(
  Object.entries(DEFINITIONS).map(([key, definition]: [string, { env?: string; default: string | undefined; help: string }]) => [
    key,
    {
      env: definition.env ?? `PLANT_STORE_${key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`,
      flag: key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`),
      default: definition.default,
      help: definition.help,
    },
  ]),
) as { readonly [K in SettingKey]: SettingDefinition & { readonly default: (typeof DEFINITIONS)[K]['default'] } };

/** How errors name a setting: the variable and its flag, e.g. `PLANT_STORE_MAX_BODY (--max-body)`. */
export function settingName(key: SettingKey): string {
  const setting: SettingDefinition = SETTINGS[key];
  return `${setting.env} (--${setting.flag})`;
}
