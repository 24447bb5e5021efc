import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigurationError, DESTINATION_KINDS, maskUrlCredentials, type DestinationKind, type WebhookSubscription } from '@plant-store/core';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import { subscriptionId, tokenDigest } from '@plant-store/core/adapter';
import { LOG_LEVELS, type LogLevel } from '../logging/json-logger.js';
import { loadJwt, type JwtConfig } from './load-jwt.js';
import { settingReader, type SettingReader } from './setting-reader.js';
import { parseDuration, parseDurationList } from './parse-duration.js';
import { parseTokenFile, parseTokenList, type TokenEntry } from './parse-tokens.js';
import { parseWebhooks } from './parse-webhooks.js';
import { SETTINGS, settingName, type SettingKey } from './settings.js';

/** Everything `serve` needs, parsed and validated. Durations are in milliseconds. */
export interface ServeConfig {
  readonly port: number;
  readonly host: string;
  readonly storage: 'sqlite' | 'postgres' | 'memory';
  /** SQLite file, as given (relative paths are relative to the working directory). */
  readonly db: string;
  /** PostgreSQL connection URL; set exactly when `storage` is `postgres`. May hold a password: never log it. */
  readonly databaseUrl?: string;
  readonly dbPool: number;
  readonly dbSchema: string;
  readonly jwt?: JwtConfig;
  readonly tokens: readonly TokenEntry[];
  /** The tokens file, watched for changes while serving. */
  readonly tokensFile?: string;
  readonly webhooks: readonly WebhookSubscription[];
  /** The webhooks file, watched for changes while serving. */
  readonly webhooksFile?: string;
  readonly webhookRetryMs: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly webhookSecretOverlapMs: number;
  readonly webhookDisableAfterMs: number;
  /** Most parked messages the storage keeps per disabled endpoint. */
  readonly webhookParkedLimit: number;
  /** `null` (`off`) keeps them. */
  readonly webhookRetentionMs: number | null;
  readonly webhookAllowPrivate: boolean;
  /** Proxy URL or `env`; absent: attempts connect directly. May hold a password: never log it. */
  readonly webhookProxy?: string;
  readonly webhookDestinationKinds: readonly DestinationKind[];
  readonly webhookMaxEndpoints: number;
  readonly maxBodyBytes: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  readonly logLevel: LogLevel;
  readonly metrics: boolean;
  readonly portal: boolean;
}

export type { JwtConfig };

export interface LoadConfigOptions {
  /** Reads the tokens and webhooks files. @default fs.readFileSync as UTF-8 */
  readonly readFile?: (path: string) => string;
}

export const SERVE_FLAGS: NonNullable<ParseArgsConfig['options']> = {
  ...Object.fromEntries(Object.values(SETTINGS).map((setting) => [setting.flag, { type: 'string' as const }])),
  help: { type: 'boolean', short: 'h' },
};

/** The raw text of each setting given on the command line. */
export interface ServeArgs {
  readonly help: boolean;
  readonly values: Partial<Record<SettingKey, string>>;
}

/** Parses `serve` flags strictly: an unknown flag, a missing value or a positional argument is a `ConfigurationError` naming it. */
export function parseServeArgs(args: readonly string[]): ServeArgs {
  let parsed: { values: Record<string, unknown> };
  try {
    parsed = parseArgs({ args: [...args], options: SERVE_FLAGS, strict: true, allowPositionals: false });
  } catch (error) {
    throw usageError(error);
  }
  const values: Partial<Record<SettingKey, string>> = {};
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    const value = parsed.values[SETTINGS[key].flag];
    if (typeof value === 'string') values[key] = value;
  }
  return { help: parsed.values['help'] === true, values };
}

/** Reads and validates the `serve` configuration (a flag wins; an empty variable counts as unset); errors name the setting, never a secret. */
export function loadConfig(args: readonly string[] | ServeArgs, env: NodeJS.ProcessEnv, options: LoadConfigOptions = {}): ServeConfig {
  const flags = 'help' in args ? args.values : parseServeArgs(args).values;
  const read = settingReader(flags, env, options.readFile ?? readUtf8);
  const tokensFile = read.file('tokensFile');
  return {
    ...listenSettings(read),
    ...storageSettings(read),
    ...optional('jwt', loadJwt(read.raw, read.file)),
    tokens: loadTokens(read.raw('tokens'), tokensFile),
    ...optional('tokensFile', tokensFile?.path),
    ...webhookSettings(read),
    ...httpSettings(read),
    logLevel: read.choice('logLevel', LOG_LEVELS),
    metrics: read.choice('metrics', ['on', 'off'] as const) === 'on',
    portal: read.choice('portal', ['on', 'off'] as const) === 'on',
  };
}

const readUtf8 = (path: string): string => readFileSync(path, 'utf8');

/** The tokens of `PLANT_STORE_TOKENS` and the tokens file, read again on their own (a reload); throws a `ConfigurationError` naming the setting. */
export function loadTokenSettings(args: ServeArgs, env: NodeJS.ProcessEnv): ServeConfig['tokens'] {
  const read = settingReader(args.values, env, readUtf8);
  return loadTokens(read.raw('tokens'), read.file('tokensFile'));
}

/** The subscriptions of `PLANT_STORE_WEBHOOKS` and the webhooks file, read again on their own (a reload); throws a `ConfigurationError` naming the setting. */
export function loadWebhookSubscriptions(args: ServeArgs, env: NodeJS.ProcessEnv): ServeConfig['webhooks'] {
  const read = settingReader(args.values, env, readUtf8);
  return loadWebhooks(read.raw('webhooks'), read.file('webhooksFile'));
}

function listenSettings(read: SettingReader): Pick<ServeConfig, 'port' | 'host'> {
  const port = read.integer('port', 0, 65_535, 'must be an integer from 0 to 65535');
  const host = read.text('host').trim();
  if (host === '' || /\s/.test(host)) throw read.fail('host', `must be a host name or IP address${read.got('host')}`);
  return { port, host };
}

function storageSettings(read: SettingReader): Pick<ServeConfig, 'storage' | 'db' | 'databaseUrl' | 'dbPool' | 'dbSchema' | 'webhookParkedLimit'> {
  const storage = read.choice('storage', ['sqlite', 'postgres', 'memory'] as const);
  const db = read.text('db').trim();
  if (db === '') throw read.fail('db', 'must be a file path');
  const databaseUrl = storage === 'postgres' ? postgresUrl(read.raw('databaseUrl'), read.fail) : undefined;
  return {
    storage,
    db,
    ...optional('databaseUrl', databaseUrl),
    dbPool: read.integer('dbPool', 1, 1000, 'must be an integer from 1 to 1000'),
    dbSchema: read.identifier('dbSchema'),
    // The storage keeps parked messages and enforces their bound, so this is a storage option.
    webhookParkedLimit: read.integer('webhookParkedLimit', 0, Number.MAX_SAFE_INTEGER, 'must be an integer of 0 or more'),
  };
}

function webhookSettings(read: SettingReader) {
  const webhookRetryMs = parseDurationList(read.text('webhookRetry'));
  if (webhookRetryMs === undefined) {
    throw read.fail('webhookRetry', `must be a comma-separated list of durations such as 5s,5m,2h, or none${read.got('webhookRetry')}`);
  }
  const webhooksFile = read.file('webhooksFile');
  return {
    webhooks: loadWebhooks(read.raw('webhooks'), webhooksFile),
    ...optional('webhooksFile', webhooksFile?.path),
    webhookRetryMs,
    webhookTimeoutMs: read.duration('webhookTimeout', 1),
    // Not timers: these only compare times, so they may exceed what a Node timer holds.
    webhookSecretOverlapMs: read.duration('webhookSecretOverlap', 0, Number.MAX_SAFE_INTEGER),
    webhookDisableAfterMs: read.duration('webhookDisableAfter', 1, Number.MAX_SAFE_INTEGER),
    webhookRetentionMs: retention(read),
    webhookAllowPrivate: read.bool('webhookAllowPrivate'),
    ...optional('webhookProxy', webhookProxy(read.raw('webhookProxy'), read.fail)),
    webhookDestinationKinds: destinationKinds(read),
    webhookMaxEndpoints: read.integer('webhookMaxEndpoints', 1, 100_000, 'must be an integer from 1 to 100000'),
  };
}

function destinationKinds(read: Pick<SettingReader, 'text' | 'fail' | 'got'>): readonly DestinationKind[] {
  const kinds = read
    .text('webhookDestinationKinds')
    .split(',')
    .map((kind) => kind.trim().toLowerCase());
  if (!kinds.every((kind): kind is DestinationKind => (DESTINATION_KINDS as readonly string[]).includes(kind))) {
    throw read.fail('webhookDestinationKinds', `must be a comma-separated list of ${DESTINATION_KINDS.join(', ')}${read.got('webhookDestinationKinds')}`);
  }
  return [...new Set(kinds)];
}

/** Not a timer (it only dates a cutoff), so it may exceed what a Node timer holds. */
function retention(read: Pick<SettingReader, 'text' | 'fail' | 'got'>): number | null {
  const text = read.text('webhookRetention').trim();
  if (text.toLowerCase() === 'off') return null;
  const ms = parseDuration(text, Number.MAX_SAFE_INTEGER);
  if (ms === undefined || ms < 1) {
    throw read.fail('webhookRetention', `must be a positive duration such as 30d, 12h or 20s, or off${read.got('webhookRetention')}`);
  }
  return ms;
}

function httpSettings(read: SettingReader) {
  const headersTimeoutMs = read.duration('headersTimeout', 1);
  const requestTimeoutMs = read.duration('requestTimeout', 1);
  // node:http refuses a headers timeout longer than the request timeout.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw read.fail('headersTimeout', `must not be longer than ${settingName('requestTimeout')} (${read.text('requestTimeout')})`);
  }
  return {
    maxBodyBytes: read.integer('maxBody', 1, 2 ** 31 - 1, 'must be a positive integer (bytes)'),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: read.duration('keepAliveTimeout', 1),
    shutdownTimeoutMs: read.duration('shutdownTimeout', 0),
  };
}

/** `{ [key]: value }`, or nothing when the value is undefined (the config has no undefined members). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

type Fail = (key: SettingKey, message: string) => ConfigurationError;

/** `env` or a proxy URL; errors never echo the URL: it may hold a password. */
function webhookProxy(value: string | undefined, fail: Fail): string | undefined {
  const proxy = value?.trim();
  if (proxy === undefined || proxy === '') return undefined;
  try {
    // The transport's own check (it opens nothing until it sends).
    webhookHttpTransport({ proxy });
  } catch {
    throw fail('webhookProxy', 'must be env or an http:// or https:// proxy URL such as http://proxy.internal:3128');
  }
  return proxy;
}

/** Errors never echo the URL: it may hold a password. */
function postgresUrl(value: string | undefined, fail: Fail): string {
  if (value === undefined) throw fail('databaseUrl', `is required when ${settingName('storage')} is postgres`);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw fail('databaseUrl', 'must be a URL such as postgres://user:password@host:5432/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw fail('databaseUrl', `must start with postgres:// or postgresql:// (got ${url.protocol}//)`);
  }
  return value.trim();
}

/** A token configured twice is an error: its tenant would be ambiguous. */
function loadTokens(list: string | undefined, file: { path: string; content: string } | undefined): TokenEntry[] {
  return mergeUnique(
    [
      { key: 'tokens', entries: list === undefined ? [] : parseTokenList(list, settingName('tokens')) },
      { key: 'tokensFile', entries: file ? parseTokenFile(file.content, settingName('tokensFile'), file.path) : [] },
    ],
    (entry) => entry.sha256 ?? tokenDigest(entry.token!),
    () => 'the same token is configured twice',
  );
}

/** Deliveries find their subscription by id (derived from the url unless given), so an id may appear once. */
function loadWebhooks(list: string | undefined, file: { path: string; content: string } | undefined): WebhookSubscription[] {
  return mergeUnique(
    [
      { key: 'webhooks', entries: list === undefined ? [] : parseWebhooks(list, settingName('webhooks')) },
      { key: 'webhooksFile', entries: file ? parseWebhooks(file.content, settingName('webhooksFile'), file.path) : [] },
    ],
    (entry) => entry.id,
    (entry) =>
      entry.id === subscriptionId(entry.url) ? `${maskUrlCredentials(entry.url)} is subscribed twice` : `subscription id ${entry.id} is configured twice`,
  );
}

function mergeUnique<T>(
  sources: readonly { readonly key: SettingKey; readonly entries: readonly T[] }[],
  identity: (entry: T) => string,
  duplicateMessage: (entry: T) => string,
): T[] {
  const seen = new Set<string>();
  const merged: T[] = [];
  for (const { key, entries } of sources) {
    for (const entry of entries) {
      const id = identity(entry);
      if (seen.has(id)) throw new ConfigurationError(settingName(key), duplicateMessage(entry));
      seen.add(id);
      merged.push(entry);
    }
  }
  return merged;
}

function usageError(error: unknown): ConfigurationError {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'(-{1,2}[^'\s]*)/.exec(message)?.[1] ?? 'arguments';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new ConfigurationError(option, 'unknown option (see plant-store serve --help)');
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return new ConfigurationError(option, 'requires a value');
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const argument = /'([^']*)'/.exec(message)?.[1] ?? '';
    return new ConfigurationError(argument, 'unexpected argument (see plant-store serve --help)');
  }
  return new ConfigurationError('arguments', message);
}
