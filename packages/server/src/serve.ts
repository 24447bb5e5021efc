import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ALL_SCOPES, ConfigurationError, createPlantStore, firstAuthenticator, type PlantStore, type PlantStoreWebhookOptions } from '@plant-store/core';
import type { Authenticator, Logger } from '@plant-store/core/adapter';
import type { ServeConfig } from './config/load-config.js';
import { replaceableTokens } from './config/replaceable-tokens.js';
import { settingName } from './config/settings.js';
import { errorText } from './storage/error-text.js';
import { openStorage } from './storage/open-storage.js';
import { createPlantServer, type PlantServerOptions, type PortalAssets } from '@plant-store/http-node';
import { brokerTransports, type ClosableWebhookTransport } from '@plant-store/broker-transports';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import { activeTraceIds } from './logging/active-trace-ids.js';
import { jsonLogger, type LogSink } from './logging/json-logger.js';
import { logOutput } from './logging/log-output.js';
import type { Tracing } from './tracing/start-tracing.js';
import { tracingCaveats, tracingRequested, tracingVariablesNotRead } from './tracing/tracing-settings.js';
import { version } from './version.js';

export interface ServeIo {
  readonly stdout: LogSink;
  /** Receives warnings meant for the operator (the development token). */
  readonly stderr: LogSink;
  /** Consulted for `NODE_ENV`, not `OTEL_*` (tracing is process-wide: differing entries are warned about). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

export interface ServeHandle {
  /** Base URL with the real port, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly store: PlantStore;
  /** Applies what `read` reads again, each set in one step and each file on its own: a bad file keeps its current set and is logged, the other still applies. Never throws. */
  reload(read: ReloadSources, trigger: string): void;
  /** Graceful stop: drains requests (cut after `shutdownTimeoutMs`), stops the dispatcher, closes storage, flushes spans. Idempotent. */
  close(): Promise<void>;
}

/** What a reload reads again (each with its variable), throwing a `ConfigurationError` naming the setting when its file is bad; one left out is not reloaded. */
export interface ReloadSources {
  readonly tokens?: () => ServeConfig['tokens'];
  readonly webhooks?: () => ServeConfig['webhooks'];
}

/** The service could not listen (port in use, permission denied, …); the message is one line for the operator. */
export class ListenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ListenError';
  }
}

const IDLE_SWEEP_MS = 50;
// Short, so the process exits within 10 s: an interrupted attempt stays due and is sent again by the next process.
const DISPATCHER_STOP_MS = 1_000;
// A collector that is down must not hold the exit (the spans are dropped).
const TRACING_FLUSH_MS = 500;

/**
 * Runs the reference service and prints the ready line. Throws a `ConfigurationError` for unusable settings and a
 * `ListenError` when the port cannot be taken. Installs no signal handlers: the CLI does.
 */
export async function serve(config: ServeConfig, io: ServeIo): Promise<ServeHandle> {
  // Log lines and the ready line, in their order; a stdout that fails (a closed pipe) drops them, and the service goes on.
  const stdout = logOutput(io.stdout, io.stderr);
  const env = io.env ?? process.env;
  // Tracing is the process's, whatever io.env says: the SDK reads process.env itself.
  const traced = tracingRequested(process.env);
  // With tracing on, each log line names the trace and span it was written in.
  const logger = jsonLogger(stdout, { level: config.logLevel, ...(traced ? { traceIds: activeTraceIds } : {}) });
  const ignored = tracingVariablesNotRead(env, process.env);
  if (ignored.length > 0)
    logger.warn(`tracing: OTEL_* variables are read from the process environment; ignoring ${ignored.join(', ')} of the environment given to serve`);
  for (const caveat of tracingCaveats(process.env)) logger.warn(`tracing: ${caveat}`);
  // First: the store's dispatcher may make an attempt as soon as it exists, and that attempt is traced too.
  const tracing = traced ? await (await import('./tracing/start-tracing.js')).startTracing(version, logger) : undefined;
  try {
    const handle = await serveTraced(config, { ...io, stdout }, env, tracing, logger);
    return { ...handle, close: () => handle.close().finally(() => stdout.end()) };
  } catch (error) {
    await tracing?.shutdown(TRACING_FLUSH_MS);
    await stdout.end();
    throw error;
  }
}

async function serveTraced(config: ServeConfig, io: ServeIo, env: NodeJS.ProcessEnv, tracing: Tracing | undefined, logger: Logger): Promise<ServeHandle> {
  const { tokens, developmentToken } = resolveTokens(config, env);
  const replaceable = replaceableTokens(tokens);
  const authenticator = await createAuthenticator(config, replaceable.authenticator, tokens.length > 0 || config.tokensFile !== undefined, logger);
  const portal = config.portal ? await loadPortal() : undefined;
  const { storage, description } = await openStorage(config);
  let store: PlantStore | undefined;
  let server: Server;
  // HTTP, and the brokers operator subscriptions (or allowed tenant endpoints) name; a broker's driver is loaded on its first URL.
  // The dispatcher sets user-agent on every request, so the HTTP transport needs no default of its own.
  const transport = brokerTransports({ http: webhookHttpTransport(config.webhookProxy === undefined ? {} : { proxy: config.webhookProxy }) });
  try {
    store = createPlantStore({ storage, authenticator, logger, webhooks: webhookOptions(config, transport) });
    server = createPlantServer(store, { ...serverOptions(config, logger), ...(portal === undefined ? {} : { portal }) });
  } catch (error) {
    await (store ? store.close() : storage.close());
    await transport.close();
    throw error;
  }
  const running = store;
  const url = await listen(server, config).catch(async (error: unknown) => {
    await running.close();
    await transport.close();
    throw error;
  });
  server.on('error', (error) => logger.error('server error', { error }));
  if (developmentToken !== undefined) warnDevelopmentToken(io, developmentToken);
  io.stdout.write(`plant-store listening on ${url} (storage: ${description})\n`);
  let closing: Promise<void> | undefined;
  return {
    url,
    store: running,
    reload: reloader(config, replaceable, running, logger),
    close() {
      closing ??= shutdown(server, running, transport, logger, config.shutdownTimeoutMs, tracing);
      return closing;
    },
  };
}

/** Printed once, on purpose: this is how the operator learns the token. It never reaches the logs. */
function warnDevelopmentToken(io: ServeIo, token: string): void {
  io.stderr.write(
    `warning: no tokens configured (set ${settingName('tokens')} or ${settingName('tokensFile')}); ` +
      `created a development token for tenant "default": ${token}\n`,
  );
}

function reloader(config: ServeConfig, tokens: ReturnType<typeof replaceableTokens>, store: PlantStore, logger: Logger): ServeHandle['reload'] {
  return (read, trigger) => {
    // Without a file, tokens and subscriptions come from variables alone, which a running process cannot see change.
    if (config.tokensFile === undefined && config.webhooksFile === undefined) {
      return logger.info('nothing to reload: no tokens file or webhooks file is configured', { trigger });
    }
    // Each on its own: a broken webhooks file must not hold back a token revocation, nor a broken tokens file a new subscription.
    const { tokens: readTokens, webhooks: readWebhooks } = read;
    if (config.tokensFile !== undefined && readTokens) reloadOne('tokens', () => tokens.replace(readTokens()), trigger, logger);
    if (config.webhooksFile !== undefined && readWebhooks) {
      reloadOne('webhook subscriptions', () => store.allTenants.subscriptions.replace(readWebhooks()), trigger, logger);
    }
  };
}

/** Applies one reloaded set and logs its changes, or logs why it failed and leaves the current set in use. */
function reloadOne(what: string, apply: () => object, trigger: string, logger: Logger): void {
  let changes: object;
  try {
    changes = apply();
  } catch (error) {
    logger.warn(`${what} reload failed; the current ${what} stay in use`, { trigger, error: errorText(error) });
    return;
  }
  logger.info(`${what} reloaded`, { trigger, ...changes });
}

function webhookOptions(config: ServeConfig, transport: ClosableWebhookTransport): PlantStoreWebhookOptions {
  return {
    subscriptions: config.webhooks,
    transport,
    userAgent: `plant-store/${version}`,
    retrySchedule: config.webhookRetryMs,
    timeoutMs: config.webhookTimeoutMs,
    stopTimeoutMs: DISPATCHER_STOP_MS,
    secretOverlapMs: config.webhookSecretOverlapMs,
    disableAfterMs: config.webhookDisableAfterMs,
    retentionMs: config.webhookRetentionMs,
    allowPrivateDestinations: config.webhookAllowPrivate,
    endpointDestinationKinds: config.webhookDestinationKinds,
    maxEndpointsPerTenant: config.webhookMaxEndpoints,
  };
}

function serverOptions(config: ServeConfig, logger: Logger): PlantServerOptions {
  return {
    maxBodyBytes: config.maxBodyBytes,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    metrics: config.metrics,
    logger,
    docs: true, // the service serves its API reference page
  };
}

/** The portal's files; an install without them fails at start, naming the setting that avoids it. */
async function loadPortal(): Promise<PortalAssets> {
  const { portalAssets } = await import('@plant-store/portal');
  try {
    return portalAssets();
  } catch (error) {
    throw new ConfigurationError(settingName('portal'), `${errorText(error)}; or set it to off`);
  }
}

async function listen(server: Server, config: ServeConfig): Promise<string> {
  try {
    await new Promise<void>((resolveListen, rejectListen) => {
      server.once('error', rejectListen);
      server.listen(config.port, config.host, () => {
        server.off('error', rejectListen);
        resolveListen();
      });
    });
  } catch (error) {
    throw listenError(error, config);
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

async function shutdown(
  server: Server,
  store: PlantStore,
  transport: ClosableWebhookTransport,
  logger: Logger,
  graceMs: number,
  tracing: Tracing | undefined,
): Promise<void> {
  logger.info('shutting down', { graceMs });
  const drained = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  // A busy keep-alive connection turns idle once its response is written: keep sweeping until all are gone.
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  const cut = setTimeout(() => {
    logger.warn('shutdown grace period over; closing remaining connections', { graceMs });
    server.closeAllConnections();
  }, graceMs);
  try {
    await drained;
  } finally {
    clearInterval(sweep);
    clearTimeout(cut);
  }
  // Stops the dispatcher (unsent deliveries stay queued), then closes storage.
  await store.close();
  await transport.close();
  // Last, so the spans of attempts cut short by the stop are exported too.
  if (tracing && !(await tracing.shutdown(TRACING_FLUSH_MS))) logger.warn('tracing: spans not exported in time were dropped', { timeoutMs: TRACING_FLUSH_MS });
  logger.info('stopped');
}

/** Static tokens first (a digest lookup), then JWTs; the JWT adapter (jose) is loaded only when configured. */
async function createAuthenticator(config: ServeConfig, statics: Authenticator, withStatics: boolean, logger: Logger): Promise<Authenticator> {
  if (config.jwt === undefined) return statics;
  const { jwtAuthenticator } = await import('@plant-store/auth-jwt');
  const jwt = jwtAuthenticator({ ...config.jwt, logger });
  return withStatics ? firstAuthenticator(statics, jwt) : jwt;
}

/** Configured tokens, or, when neither tokens nor JWT are configured and outside production, one fresh development token for tenant `default`. */
function resolveTokens(config: ServeConfig, env: NodeJS.ProcessEnv): { tokens: ServeConfig['tokens']; developmentToken?: string } {
  if (config.tokens.length > 0 || config.jwt !== undefined) return { tokens: config.tokens };
  if (env['NODE_ENV'] === 'production') {
    throw new ConfigurationError(
      settingName('tokens'),
      `no tokens configured; NODE_ENV=production requires ${settingName('tokens')}, ${settingName('tokensFile')}, ${settingName('jwtJwksUrl')} or ${settingName('jwtJwksFile')}`,
    );
  }
  const token = `dev_${randomBytes(24).toString('base64url')}`;
  return { tokens: [{ token, tenant: 'default', subject: 'development', scopes: [...ALL_SCOPES] }], developmentToken: token };
}

function listenError(error: unknown, config: ServeConfig): Error {
  const code = (error as { code?: string }).code;
  const address = `${config.host}:${config.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new ListenError(`cannot listen on ${address}: the port is already in use (set ${settingName('port')})`, { cause: error });
    case 'EACCES':
      return new ListenError(`cannot listen on ${address}: permission denied (ports below 1024 need privileges)`, { cause: error });
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigurationError(settingName('host'), `cannot listen on ${config.host}: no such local address`);
    default:
      return new ListenError(`cannot listen on ${address}: ${errorText(error)}`, { cause: error });
  }
}
