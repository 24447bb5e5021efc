import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair } from 'jose';
import { ConfigurationError } from '@plant-store/core';
import { subscriptionId, tokenDigest } from '@plant-store/core/adapter';
import { loadConfig, parseServeArgs } from './load-config.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function tempFile(content: string): string {
  const path = join(dir, `file-${fileCount++}.json`);
  writeFileSync(path, content);
  return path;
}

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const DIGEST = 'AB'.repeat(32);

/** The ConfigurationError thrown by `run`, or a failure when none is. */
function configError(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
}

describe('loadConfig defaults', () => {
  it('gives the documented defaults when nothing is set', () => {
    expect(loadConfig([], {})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      storage: 'sqlite',
      db: './data/plant-store.db',
      dbPool: 10,
      dbSchema: 'public',
      webhookParkedLimit: 10_000,
      tokens: [],
      webhooks: [],
      webhookRetryMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      webhookTimeoutMs: 15_000,
      webhookSecretOverlapMs: 86_400_000,
      webhookDisableAfterMs: 432_000_000,
      webhookRetentionMs: 30 * 86_400_000,
      webhookAllowPrivate: false,
      webhookDestinationKinds: ['http'],
      webhookMaxEndpoints: 50,
      maxBodyBytes: 65_536,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      shutdownTimeoutMs: 7_000,
      logLevel: 'info',
      metrics: true,
      portal: true,
    });
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig([], { PORT: '', PLANT_STORE_TOKENS: '  ', PLANT_STORE_LOG_LEVEL: '' })).toMatchObject({
      port: 8080,
      tokens: [],
      logLevel: 'info',
    });
  });
});

describe('loadConfig reads every variable, and every flag wins over it', () => {
  const tokensFile = tempFile(JSON.stringify([{ token: 'file-token', tenant: 'f' }]));
  const otherTokensFile = tempFile(JSON.stringify([{ token: 'flag-file-token', tenant: 'g' }]));
  const webhooksFile = tempFile(JSON.stringify([{ url: 'http://127.0.0.1:9/env-file', secret: SECRET }]));
  const otherWebhooksFile = tempFile(JSON.stringify([{ url: 'http://127.0.0.1:9/flag-file', secret: SECRET }]));

  const env = {
    PORT: '9000',
    HOST: '0.0.0.0',
    PLANT_STORE_STORAGE: 'memory',
    PLANT_STORE_DB: '/tmp/env.db',
    PLANT_STORE_DB_POOL: '5',
    PLANT_STORE_TOKENS: 'env-token=e',
    PLANT_STORE_TOKENS_FILE: tokensFile,
    PLANT_STORE_WEBHOOKS: JSON.stringify([{ url: 'http://127.0.0.1:9/env', secret: SECRET, tenant: 'e' }]),
    PLANT_STORE_WEBHOOKS_FILE: webhooksFile,
    PLANT_STORE_WEBHOOK_RETRY: '1s,2s',
    PLANT_STORE_WEBHOOK_TIMEOUT: '3s',
    PLANT_STORE_WEBHOOK_SECRET_OVERLAP: '1h',
    PLANT_STORE_WEBHOOK_DISABLE_AFTER: '30d',
    PLANT_STORE_WEBHOOK_RETENTION: 'off',
    PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
    PLANT_STORE_WEBHOOK_MAX_ENDPOINTS: '7',
    PLANT_STORE_WEBHOOK_PARKED_LIMIT: '0',
    PLANT_STORE_MAX_BODY: '1000',
    PLANT_STORE_HEADERS_TIMEOUT: '4s',
    PLANT_STORE_REQUEST_TIMEOUT: '20s',
    PLANT_STORE_KEEP_ALIVE_TIMEOUT: '6s',
    PLANT_STORE_SHUTDOWN_TIMEOUT: '7s',
    PLANT_STORE_LOG_LEVEL: 'warn',
    PLANT_STORE_METRICS: 'off',
    PLANT_STORE_PORTAL: 'off',
  };
  const flags = [
    '--port=0',
    '--host',
    '::1',
    '--storage=sqlite',
    '--db=/tmp/flag.db',
    '--db-pool=7',
    '--tokens=flag-token=t',
    `--tokens-file=${otherTokensFile}`,
    `--webhooks=${JSON.stringify([{ url: 'http://127.0.0.1:9/flag', secret: SECRET }])}`,
    `--webhooks-file=${otherWebhooksFile}`,
    '--webhook-retry=10ms,20ms,30ms',
    '--webhook-timeout=500ms',
    '--webhook-secret-overlap=0s',
    '--webhook-disable-after=90m',
    '--webhook-retention=20s',
    '--webhook-allow-private=FALSE',
    '--webhook-max-endpoints=3',
    '--webhook-parked-limit=250',
    '--max-body=2048',
    '--headers-timeout=1s',
    '--request-timeout=2s',
    '--keep-alive-timeout=3s',
    '--shutdown-timeout=0ms',
    '--log-level=debug',
    '--metrics=on',
    '--portal=on',
  ];

  it('from the environment', () => {
    const config = loadConfig([], env);
    expect(config).toEqual({
      port: 9000,
      host: '0.0.0.0',
      storage: 'memory',
      db: '/tmp/env.db',
      dbPool: 5,
      dbSchema: 'public',
      webhookParkedLimit: 0,
      tokens: [
        { token: 'env-token', tenant: 'e' },
        { token: 'file-token', tenant: 'f' },
      ],
      tokensFile,
      webhooksFile,
      webhooks: [
        { id: subscriptionId('http://127.0.0.1:9/env'), url: 'http://127.0.0.1:9/env', secret: SECRET, tenant: 'e', eventTypes: ['plant.created'] },
        { id: subscriptionId('http://127.0.0.1:9/env-file'), url: 'http://127.0.0.1:9/env-file', secret: SECRET, eventTypes: ['plant.created'] },
      ],
      webhookRetryMs: [1_000, 2_000],
      webhookTimeoutMs: 3_000,
      webhookSecretOverlapMs: 3_600_000,
      webhookDisableAfterMs: 30 * 86_400_000,
      webhookRetentionMs: null,
      webhookAllowPrivate: true,
      webhookDestinationKinds: ['http'],
      webhookMaxEndpoints: 7,
      maxBodyBytes: 1_000,
      headersTimeoutMs: 4_000,
      requestTimeoutMs: 20_000,
      keepAliveTimeoutMs: 6_000,
      shutdownTimeoutMs: 7_000,
      logLevel: 'warn',
      metrics: false,
      portal: false,
    });
  });

  it('from flags, over the environment', () => {
    const config = loadConfig(flags, env);
    expect(config).toEqual({
      port: 0,
      host: '::1',
      storage: 'sqlite',
      db: '/tmp/flag.db',
      dbPool: 7,
      dbSchema: 'public',
      webhookParkedLimit: 250,
      tokens: [
        { token: 'flag-token', tenant: 't' },
        { token: 'flag-file-token', tenant: 'g' },
      ],
      tokensFile: otherTokensFile,
      webhooksFile: otherWebhooksFile,
      webhooks: [
        { id: subscriptionId('http://127.0.0.1:9/flag'), url: 'http://127.0.0.1:9/flag', secret: SECRET, eventTypes: ['plant.created'] },
        { id: subscriptionId('http://127.0.0.1:9/flag-file'), url: 'http://127.0.0.1:9/flag-file', secret: SECRET, eventTypes: ['plant.created'] },
      ],
      webhookRetryMs: [10, 20, 30],
      webhookTimeoutMs: 500,
      webhookSecretOverlapMs: 0,
      webhookDisableAfterMs: 5_400_000,
      webhookRetentionMs: 20_000,
      webhookAllowPrivate: false,
      webhookDestinationKinds: ['http'],
      webhookMaxEndpoints: 3,
      maxBodyBytes: 2_048,
      headersTimeoutMs: 1_000,
      requestTimeoutMs: 2_000,
      keepAliveTimeoutMs: 3_000,
      shutdownTimeoutMs: 0,
      logLevel: 'debug',
      metrics: true,
      portal: true,
    });
  });

  it('from flags alone', () => {
    expect(loadConfig(flags, {})).toEqual(loadConfig(flags, env));
  });

  it('lets the last of a repeated flag win', () => {
    expect(loadConfig(['--port=1', '--port=2'], {}).port).toBe(2);
  });

  it('accepts choices in any case', () => {
    expect(loadConfig(['--storage=MEMORY', '--log-level=Error', '--metrics=OFF'], {})).toMatchObject({
      storage: 'memory',
      logLevel: 'error',
      metrics: false,
    });
  });
});

describe('loadConfig tokens', () => {
  it('parses token=tenant and sha256:<hex>=tenant entries, each with both scopes by default', () => {
    const config = loadConfig([], { PLANT_STORE_TOKENS: `alpha=t1, beta==t2 ,sha256:${DIGEST}=t3,` });
    expect(config.tokens).toEqual([
      { token: 'alpha', tenant: 't1' },
      // The tenant follows the last '=', so base64 padding stays in the token.
      { token: 'beta=', tenant: 't2' },
      { sha256: DIGEST.toLowerCase(), tenant: 't3' },
    ]);
  });

  it('merges the variable with the file, whose entries may carry digests, subjects and scopes', () => {
    const file = tempFile(
      JSON.stringify([
        { sha256: DIGEST, tenant: 'acme', subject: 'ci', scopes: ['plants:read'] },
        { token: 'writer', tenant: 'acme', scopes: ['plants:write'] },
      ]),
    );
    const config = loadConfig([`--tokens-file=${file}`], { PLANT_STORE_TOKENS: 'alpha=t1' });
    expect(config.tokens).toEqual([
      { token: 'alpha', tenant: 't1' },
      { sha256: DIGEST.toLowerCase(), tenant: 'acme', subject: 'ci', scopes: ['plants:read'] },
      { token: 'writer', tenant: 'acme', scopes: ['plants:write'] },
    ]);
  });

  it('rejects a token configured twice, even once as a digest', () => {
    const file = tempFile(JSON.stringify([{ sha256: tokenDigest('alpha'), tenant: 'other' }]));
    const error = configError(() => loadConfig([`--tokens-file=${file}`], { PLANT_STORE_TOKENS: 'alpha=t1' }));
    expect(error.message).toBe('PLANT_STORE_TOKENS_FILE (--tokens-file): the same token is configured twice');
    expect(configError(() => loadConfig(['--tokens=a=x,a=y'], {})).setting).toBe('PLANT_STORE_TOKENS (--tokens)');
  });

  it.each([
    ['justatoken', 'entry 1: must be token=tenant or sha256:<64 hex digits>=tenant'],
    ['=tenant', 'entry 1: must be token=tenant or sha256:<64 hex digits>=tenant'],
    ['ok=t,secret-token=', 'entry 2: tenant must be a non-empty string'],
    ['sha256:abc=t', 'entry 1: sha256 must be 64 hex digits'],
    ['two words=t', 'entry 1: token must be printable ASCII without spaces'],
  ])('rejects %j naming the variable, the flag and the entry, never the token', (value, message) => {
    const error = configError(() => loadConfig([], { PLANT_STORE_TOKENS: value }));
    expect(error.message).toBe(`PLANT_STORE_TOKENS (--tokens): ${message}`);
    expect(error.message).not.toContain('secret-token');
    expect(error.message).not.toContain('justatoken');
  });

  it.each([
    ['not json {"token":"leaky"', 'not valid JSON (expected a JSON array)'],
    ['{"token":"leaky","tenant":"t"}', 'must be a JSON array'],
    ['[{"token":"leaky"}]', 'entry [0]: tenant is required'],
    ['[{"token":"ok","tenant":"t"},{"tenant":"t"}]', 'entry [1]: give exactly one of token or sha256'],
    ['[{"token":"leaky","sha256":"' + DIGEST + '","tenant":"t"}]', 'entry [0]: give exactly one of token or sha256'],
    [
      '[{"token":"leaky","tenant":"t","scopes":["plants:admin"]}]',
      'entry [0]: scopes must be a list of plants:read, plants:write, webhooks:read, webhooks:write',
    ],
    ['[{"token":"leaky","tenant":"t","tenat":"x"}]', "entry [0]: unknown property 'tenat'"],
  ])('rejects the tokens file %j naming the variable, the flag and the file', (content, message) => {
    const file = tempFile(content);
    const error = configError(() => loadConfig([], { PLANT_STORE_TOKENS_FILE: file }));
    expect(error.message).toBe(`PLANT_STORE_TOKENS_FILE (--tokens-file): ${file}: ${message}`);
    expect(error.message).not.toContain('leaky');
  });

  it('names a tokens file that cannot be read', () => {
    const missing = join(dir, 'missing.json');
    expect(configError(() => loadConfig([`--tokens-file=${missing}`], {})).message).toBe(
      `PLANT_STORE_TOKENS_FILE (--tokens-file): cannot read ${missing}: no such file`,
    );
    expect(configError(() => loadConfig([], { PLANT_STORE_TOKENS_FILE: dir })).message).toBe(
      `PLANT_STORE_TOKENS_FILE (--tokens-file): cannot read ${dir}: is a directory`,
    );
  });
});

describe('loadConfig webhooks', () => {
  it('merges the variable and the file', () => {
    const file = tempFile(JSON.stringify([{ url: 'https://example.test/b', secret: SECRET, tenant: 'acme' }]));
    const config = loadConfig([], {
      PLANT_STORE_WEBHOOKS: JSON.stringify([{ url: 'http://127.0.0.1:1/a', secret: SECRET }]),
      PLANT_STORE_WEBHOOKS_FILE: file,
    });
    expect(config.webhooks).toEqual([
      { id: subscriptionId('http://127.0.0.1:1/a'), url: 'http://127.0.0.1:1/a', secret: SECRET, eventTypes: ['plant.created'] },
      { id: subscriptionId('https://example.test/b'), url: 'https://example.test/b', secret: SECRET, tenant: 'acme', eventTypes: ['plant.created'] },
    ]);
  });

  it.each([
    ['[{"url":"http://x', 'not valid JSON at line 1, column 18 (expected a JSON array)'],
    [JSON.stringify({ url: 'http://127.0.0.1/a', secret: SECRET }), 'must be a JSON array'],
    [
      JSON.stringify([{ url: 'ftp://127.0.0.1/a', secret: SECRET }]),
      'entry [0]: url must be an absolute http, https, amqp, amqps, nats, redis, rediss, mqtt or mqtts URL',
    ],
    [JSON.stringify([{ url: 'http://127.0.0.1/a' }]), 'entry [0]: secret is required'],
    [
      JSON.stringify([{ url: 'http://127.0.0.1/a', secret: 'whsec_c2hvcnQ=' }]),
      'entry [0]: secret must be "whsec_" followed by base64 of at least 24 random bytes',
    ],
    [JSON.stringify([{ url: 'http://127.0.0.1/a', secret: SECRET, tenant: '' }]), 'entry [0]: tenant must be a non-empty string'],
    [JSON.stringify([{ url: 'http://127.0.0.1/a', secret: SECRET, events: [] }]), "entry [0]: unknown property 'events'"],
    [
      JSON.stringify([
        { url: 'http://127.0.0.1/a', secret: SECRET },
        { url: 'http://127.0.0.1/a', secret: SECRET },
      ]),
      'http://127.0.0.1/a is subscribed twice',
    ],
    [
      JSON.stringify([
        { id: 'hooks', url: 'http://127.0.0.1/a', secret: SECRET },
        { id: 'hooks', url: 'http://127.0.0.1/b', secret: SECRET },
      ]),
      'subscription id hooks is configured twice',
    ],
    [
      JSON.stringify([{ id: 'no spaces', url: 'http://127.0.0.1/a', secret: SECRET }]),
      'entry [0]: id must be 1 to 64 letters, digits, "_", "-", "." or ":", not starting with "ep_" (tenant endpoint ids)',
    ],
  ])('rejects PLANT_STORE_WEBHOOKS=%s naming the variable and never the secret', (value, message) => {
    const error = configError(() => loadConfig([], { PLANT_STORE_WEBHOOKS: value }));
    expect(error.message).toBe(`PLANT_STORE_WEBHOOKS (--webhooks): ${message}`);
    expect(error.message).not.toContain(SECRET);
  });

  it('takes broker URLs, and names one given twice without its credentials', () => {
    const broker = 'amqp://user:hunter2@broker.test:5672/?exchange=plants';
    expect(loadConfig([], { PLANT_STORE_WEBHOOKS: JSON.stringify([{ url: broker, secret: SECRET }]) }).webhooks[0]?.url).toBe(broker);
    const twice = JSON.stringify([
      { url: broker, secret: SECRET },
      { url: broker, secret: SECRET },
    ]);
    const { message } = configError(() => loadConfig([], { PLANT_STORE_WEBHOOKS: twice }));
    expect(message).toContain('amqp://***@broker.test:5672/?exchange=plants is subscribed twice');
    expect(message).not.toContain('hunter2');
  });

  it('reads the destination kinds tenant endpoints may name', () => {
    expect(loadConfig([], { PLANT_STORE_WEBHOOK_DESTINATION_KINDS: 'http, AMQP,nats,nats' }).webhookDestinationKinds).toEqual(['http', 'amqp', 'nats']);
    expect(loadConfig(['--webhook-destination-kinds', 'redis,mqtt'], {}).webhookDestinationKinds).toEqual(['redis', 'mqtt']);
    expect(configError(() => loadConfig([], { PLANT_STORE_WEBHOOK_DESTINATION_KINDS: 'http,kafka' })).message).toBe(
      'PLANT_STORE_WEBHOOK_DESTINATION_KINDS (--webhook-destination-kinds): must be a comma-separated list of http, amqp, nats, redis, mqtt (got "http,kafka")',
    );
  });

  it('names the file and the entry for a bad webhooks file', () => {
    const file = tempFile(
      JSON.stringify([
        { url: 'http://127.0.0.1/a', secret: SECRET },
        { url: 'nope', secret: SECRET },
      ]),
    );
    expect(configError(() => loadConfig([`--webhooks-file=${file}`], {})).message).toBe(
      `PLANT_STORE_WEBHOOKS_FILE (--webhooks-file): ${file}: entry [1]: url must be an absolute http, https, amqp, amqps, nats, redis, rediss, mqtt or mqtts URL`,
    );
  });
});

describe('loadConfig rejects bad values, naming the variable and its flag', () => {
  it.each([
    [{ PORT: 'http' }, 'PORT (--port): must be an integer from 0 to 65535 (got "http")'],
    [{ PORT: '65536' }, 'PORT (--port): must be an integer from 0 to 65535 (got "65536")'],
    [{ PORT: '-1' }, 'PORT (--port): must be an integer from 0 to 65535 (got "-1")'],
    [{ PORT: '80.5' }, 'PORT (--port): must be an integer from 0 to 65535 (got "80.5")'],
    [{ HOST: 'two words' }, 'HOST (--host): must be a host name or IP address (got "two words")'],
    [{ PLANT_STORE_STORAGE: 'oracle' }, 'PLANT_STORE_STORAGE (--storage): must be one of sqlite, postgres, memory (got "oracle")'],
    [{ PLANT_STORE_STORAGE: 'postgres' }, 'PLANT_STORE_DATABASE_URL (--database-url): is required when PLANT_STORE_STORAGE (--storage) is postgres'],
    [
      { PLANT_STORE_STORAGE: 'postgres', PLANT_STORE_DATABASE_URL: 'mysql://root:hunter2@db/x' },
      'PLANT_STORE_DATABASE_URL (--database-url): must start with postgres:// or postgresql:// (got mysql://)',
    ],
    [
      { PLANT_STORE_STORAGE: 'postgres', PLANT_STORE_DATABASE_URL: 'hunter2 no url' },
      'PLANT_STORE_DATABASE_URL (--database-url): must be a URL such as postgres://user:password@host:5432/database',
    ],
    [{ PLANT_STORE_DB_POOL: '0' }, 'PLANT_STORE_DB_POOL (--db-pool): must be an integer from 1 to 1000 (got "0")'],
    [
      { PLANT_STORE_JWT_JWKS_URL: 'https://idp.example/jwks' },
      'PLANT_STORE_JWT_ISSUER (--jwt-issuer): is required when PLANT_STORE_JWT_JWKS_URL (--jwt-jwks-url) is set (comma-separated for several)',
    ],
    [
      { PLANT_STORE_JWT_JWKS_URL: 'https://idp.example/jwks', PLANT_STORE_JWT_ISSUER: 'https://idp.example' },
      'PLANT_STORE_JWT_AUDIENCE (--jwt-audience): is required when PLANT_STORE_JWT_JWKS_URL (--jwt-jwks-url) is set (comma-separated for several)',
    ],
    [
      { PLANT_STORE_JWT_ISSUER: 'https://idp.example' },
      'PLANT_STORE_JWT_ISSUER (--jwt-issuer): needs PLANT_STORE_JWT_JWKS_URL (--jwt-jwks-url) or PLANT_STORE_JWT_JWKS_FILE (--jwt-jwks-file)',
    ],
    [{ PLANT_STORE_JWT_JWKS_URL: 'ftp://idp.example/jwks' }, 'PLANT_STORE_JWT_JWKS_URL (--jwt-jwks-url): must be an http or https URL'],
    [{ PLANT_STORE_MAX_BODY: 'abc' }, 'PLANT_STORE_MAX_BODY (--max-body): must be a positive integer (bytes) (got "abc")'],
    [{ PLANT_STORE_MAX_BODY: '0' }, 'PLANT_STORE_MAX_BODY (--max-body): must be a positive integer (bytes) (got "0")'],
    [{ PLANT_STORE_MAX_BODY: '64k' }, 'PLANT_STORE_MAX_BODY (--max-body): must be a positive integer (bytes) (got "64k")'],
    [
      { PLANT_STORE_WEBHOOK_RETRY: '5s,5x' },
      'PLANT_STORE_WEBHOOK_RETRY (--webhook-retry): must be a comma-separated list of durations such as 5s,5m,2h, or none (got "5s,5x")',
    ],
    [
      { PLANT_STORE_WEBHOOK_TIMEOUT: '15' },
      'PLANT_STORE_WEBHOOK_TIMEOUT (--webhook-timeout): must be a positive duration such as 500ms, 5s, 5m or 2h (got "15")',
    ],
    [
      { PLANT_STORE_WEBHOOK_TIMEOUT: '0s' },
      'PLANT_STORE_WEBHOOK_TIMEOUT (--webhook-timeout): must be a positive duration such as 500ms, 5s, 5m or 2h (got "0s")',
    ],
    [
      { PLANT_STORE_HEADERS_TIMEOUT: '1m' },
      'PLANT_STORE_HEADERS_TIMEOUT (--headers-timeout): must not be longer than PLANT_STORE_REQUEST_TIMEOUT (--request-timeout) (30s)',
    ],
    [
      { PLANT_STORE_SHUTDOWN_TIMEOUT: 'soon' },
      'PLANT_STORE_SHUTDOWN_TIMEOUT (--shutdown-timeout): must be a duration such as 500ms, 5s, 5m or 2h (got "soon")',
    ],
    [
      { PLANT_STORE_WEBHOOK_SECRET_OVERLAP: '1 day' },
      'PLANT_STORE_WEBHOOK_SECRET_OVERLAP (--webhook-secret-overlap): must be a duration such as 500ms, 5s, 5m or 2h (got "1 day")',
    ],
    [
      { PLANT_STORE_WEBHOOK_DISABLE_AFTER: '0d' },
      'PLANT_STORE_WEBHOOK_DISABLE_AFTER (--webhook-disable-after): must be a positive duration such as 500ms, 5s, 5m or 2h (got "0d")',
    ],
    [
      { PLANT_STORE_WEBHOOK_RETENTION: '0s' },
      'PLANT_STORE_WEBHOOK_RETENTION (--webhook-retention): must be a positive duration such as 30d, 12h or 20s, or off (got "0s")',
    ],
    [
      { PLANT_STORE_WEBHOOK_RETENTION: 'forever' },
      'PLANT_STORE_WEBHOOK_RETENTION (--webhook-retention): must be a positive duration such as 30d, 12h or 20s, or off (got "forever")',
    ],
    [{ PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'yes' }, 'PLANT_STORE_WEBHOOK_ALLOW_PRIVATE (--webhook-allow-private): must be one of true, false (got "yes")'],
    [
      { PLANT_STORE_WEBHOOK_PROXY: 'socks5://egress:hunter2@proxy.internal:1080' },
      'PLANT_STORE_WEBHOOK_PROXY (--webhook-proxy): must be env or an http:// or https:// proxy URL such as http://proxy.internal:3128',
    ],
    [{ PLANT_STORE_WEBHOOK_MAX_ENDPOINTS: '0' }, 'PLANT_STORE_WEBHOOK_MAX_ENDPOINTS (--webhook-max-endpoints): must be an integer from 1 to 100000 (got "0")'],
    [
      { PLANT_STORE_WEBHOOK_MAX_ENDPOINTS: 'many' },
      'PLANT_STORE_WEBHOOK_MAX_ENDPOINTS (--webhook-max-endpoints): must be an integer from 1 to 100000 (got "many")',
    ],
    [{ PLANT_STORE_WEBHOOK_PARKED_LIMIT: '-1' }, 'PLANT_STORE_WEBHOOK_PARKED_LIMIT (--webhook-parked-limit): must be an integer of 0 or more (got "-1")'],
    [{ PLANT_STORE_WEBHOOK_PARKED_LIMIT: '1.5' }, 'PLANT_STORE_WEBHOOK_PARKED_LIMIT (--webhook-parked-limit): must be an integer of 0 or more (got "1.5")'],
    [{ PLANT_STORE_LOG_LEVEL: 'verbose' }, 'PLANT_STORE_LOG_LEVEL (--log-level): must be one of debug, info, warn, error (got "verbose")'],
    [{ PLANT_STORE_METRICS: 'yes' }, 'PLANT_STORE_METRICS (--metrics): must be one of on, off (got "yes")'],
    [{ PLANT_STORE_PORTAL: 'true' }, 'PLANT_STORE_PORTAL (--portal): must be one of on, off (got "true")'],
  ])('%j', (env, message) => {
    expect(configError(() => loadConfig([], env)).message).toBe(message);
  });

  it('takes a webhook proxy URL or env, and none by default', () => {
    expect(loadConfig([], { PLANT_STORE_WEBHOOK_PROXY: 'http://egress:hunter2@proxy.internal:3128' }).webhookProxy).toBe(
      'http://egress:hunter2@proxy.internal:3128',
    );
    expect(loadConfig(['--webhook-proxy=env'], {}).webhookProxy).toBe('env');
    expect(loadConfig([], {})).not.toHaveProperty('webhookProxy');
  });

  it('names the same setting when the bad value comes from the flag', () => {
    expect(configError(() => loadConfig(['--max-body=-5'], { PLANT_STORE_MAX_BODY: '100' })).setting).toBe('PLANT_STORE_MAX_BODY (--max-body)');
    expect(configError(() => loadConfig(['--db='], {})).message).toBe('PLANT_STORE_DB (--db): must be a file path');
  });
});

describe('loadConfig PostgreSQL and JWT', () => {
  it('takes the database URL and pool size for postgres storage, and never echoes the URL in errors', () => {
    const url = 'postgres://app:hunter2@db.internal:5432/plants';
    expect(loadConfig(['--storage=postgres', `--database-url=${url}`, '--db-pool=20'], {})).toMatchObject({
      storage: 'postgres',
      databaseUrl: url,
      dbPool: 20,
    });
    expect(loadConfig([], { PLANT_STORE_STORAGE: 'postgres', PLANT_STORE_DATABASE_URL: url }).databaseUrl).toBe(url);
    expect(loadConfig([], { PLANT_STORE_DATABASE_URL: url })).not.toHaveProperty('databaseUrl');
    const error = configError(() => loadConfig(['--storage=postgres', '--database-url=http://app:hunter2@db/x'], {}));
    expect(error.message).not.toContain('hunter2');
  });

  it('configures JWT from a JWKS URL or file, with issuers, audiences and the tenant claim', async () => {
    const common = { PLANT_STORE_JWT_ISSUER: 'https://idp.example', PLANT_STORE_JWT_AUDIENCE: 'plant-store, admin' };
    expect(loadConfig([], { ...common, PLANT_STORE_JWT_JWKS_URL: 'https://idp.example/jwks' }).jwt).toEqual({
      jwksUrl: new URL('https://idp.example/jwks'),
      issuer: ['https://idp.example'],
      audience: ['plant-store', 'admin'],
      tenantClaim: 'tenant',
    });
    const { publicKey } = await generateKeyPair('ES256');
    const key = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const keysFile = tempFile(JSON.stringify({ keys: [key] }));
    expect(loadConfig([`--jwt-jwks-file=${keysFile}`, '--jwt-tenant-claim=org'], common).jwt).toMatchObject({
      jwks: { keys: [expect.objectContaining({ kid: 'k1' })] },
      issuer: ['https://idp.example'],
      tenantClaim: 'org',
    });
    expect(loadConfig([], {})).not.toHaveProperty('jwt');
  });

  it('names a JWKS file that is missing, not JSON or not a key set', () => {
    const common = { PLANT_STORE_JWT_ISSUER: 'i', PLANT_STORE_JWT_AUDIENCE: 'a' };
    const notJson = tempFile('{');
    expect(configError(() => loadConfig([`--jwt-jwks-file=${notJson}`], common)).message).toBe(
      `PLANT_STORE_JWT_JWKS_FILE (--jwt-jwks-file): ${notJson}: not valid JSON (expected a JWKS {"keys": [...]})`,
    );
    expect(configError(() => loadConfig([`--jwt-jwks-file=${join(dir, 'absent.json')}`], common)).setting).toBe('PLANT_STORE_JWT_JWKS_FILE (--jwt-jwks-file)');
    expect(configError(() => loadConfig([`--jwt-jwks-file=${tempFile('{"keys":[]}')}`], common)).setting).toBe('PLANT_STORE_JWT_JWKS_FILE (--jwt-jwks-file)');
  });
});

describe('parseServeArgs', () => {
  it('rejects unknown flags, missing values and positional arguments', () => {
    expect(configError(() => parseServeArgs(['--prot=8080'])).message).toBe('--prot: unknown option (see plant-store serve --help)');
    expect(configError(() => parseServeArgs(['--port'])).message).toBe('--port: requires a value');
    expect(configError(() => parseServeArgs(['now'])).message).toBe('now: unexpected argument (see plant-store serve --help)');
  });

  it('recognises --help and -h', () => {
    expect(parseServeArgs(['--help']).help).toBe(true);
    expect(parseServeArgs(['-h']).help).toBe(true);
    expect(parseServeArgs(['--port=1'])).toEqual({ help: false, values: { port: '1' } });
  });
});
