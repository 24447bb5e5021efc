import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-config-'));
const aFile = join(dir, 'a-file');
writeFileSync(aFile, 'not a folder');
const SECRET_TOKEN = 'super-secret-token-value';
const trailingComma = join(dir, 'trailing-comma.json');
writeFileSync(trailingComma, `[\n  {"token": "${SECRET_TOKEN}", "tenant": "acme"},\n]\n`);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One line on stderr, nothing on stdout. */
function expectOneLine(result: { stdout: string; stderr: string }): string {
  expect(result.stdout).toBe('');
  const lines = result.stderr.split('\n');
  expect(lines.at(-1)).toBe('');
  expect(lines).toHaveLength(2);
  return lines[0]!;
}

describe.concurrent('bad configuration exits with status 2 and one line naming the variable', () => {
  it.each([
    [['--port=http'], {}, 'error: PORT (--port): must be an integer from 0 to 65535 (got "http")'],
    [[], { PORT: '70000' }, 'error: PORT (--port): must be an integer from 0 to 65535 (got "70000")'],
    [['--storage=oracle'], { PLANT_STORE_STORAGE: 'memory' }, 'error: PLANT_STORE_STORAGE (--storage): must be one of sqlite, postgres, memory (got "oracle")'],
    [['--max-body=0'], {}, 'error: PLANT_STORE_MAX_BODY (--max-body): must be a positive integer (bytes) (got "0")'],
    [
      [],
      { PLANT_STORE_WEBHOOK_RETRY: '5s,soon' },
      'error: PLANT_STORE_WEBHOOK_RETRY (--webhook-retry): must be a comma-separated list of durations such as 5s,5m,2h, or none (got "5s,soon")',
    ],
    [[], { PLANT_STORE_LOG_LEVEL: 'loud' }, 'error: PLANT_STORE_LOG_LEVEL (--log-level): must be one of debug, info, warn, error (got "loud")'],
    [[], { PLANT_STORE_TOKENS: `${SECRET_TOKEN}=` }, 'error: PLANT_STORE_TOKENS (--tokens): entry 1: tenant must be a non-empty string'],
    [
      [],
      { PLANT_STORE_WEBHOOKS: '[{"url":"http://127.0.0.1:1/hook","secret":"whsec_dG9vIHNob3J0"}]' },
      'error: PLANT_STORE_WEBHOOKS (--webhooks): entry [0]: secret must be "whsec_" followed by base64 of at least 24 random bytes',
    ],
    [
      [`--tokens-file=${join(dir, 'missing.json')}`],
      {},
      `error: PLANT_STORE_TOKENS_FILE (--tokens-file): cannot read ${join(dir, 'missing.json')}: no such file`,
    ],
    [
      [`--tokens-file=${trailingComma}`],
      {},
      `error: PLANT_STORE_TOKENS_FILE (--tokens-file): ${trailingComma}: not valid JSON at line 2, column 58 (a trailing comma) (expected a JSON array)`,
    ],
    [['--prot=8080'], {}, 'error: --prot: unknown option (see plant-store serve --help)'],
  ] as const)('serve %j with %j', async (args, env, line) => {
    const result = await runCli(['serve', '--storage=memory', ...args], { env: { ...env } });
    expect(result.code).toBe(2);
    expect(expectOneLine(result)).toBe(line);
    expect(result.stderr).not.toContain(SECRET_TOKEN);
  });

  it('refuses to start without tokens in production, naming PLANT_STORE_TOKENS', async () => {
    const result = await runCli(['serve', '--storage=memory', '--port=0'], { env: { NODE_ENV: 'production' } });
    expect(result.code).toBe(2);
    expect(expectOneLine(result)).toBe(
      'error: PLANT_STORE_TOKENS (--tokens): no tokens configured; NODE_ENV=production requires PLANT_STORE_TOKENS (--tokens), PLANT_STORE_TOKENS_FILE (--tokens-file), PLANT_STORE_JWT_JWKS_URL (--jwt-jwks-url) or PLANT_STORE_JWT_JWKS_FILE (--jwt-jwks-file)',
    );
  });

  it('names PLANT_STORE_DB when the database folder cannot be created', async () => {
    const result = await runCli(['serve', '--port=0', `--db=${join(aFile, 'plants.db')}`], { env: { PLANT_STORE_TOKENS: 't=x' } });
    expect(result.code).toBe(2);
    expect(expectOneLine(result)).toMatch(
      /^error: PLANT_STORE_DB \(--db\): cannot create the folder of .*a-file\/plants\.db: part of the path is a file, not a folder$/,
    );
  });

  it('names HOST when the address is not local', async () => {
    // 192.0.2.1 is TEST-NET-1: never assigned to this machine, and no DNS lookup is needed.
    const result = await runCli(['serve', '--storage=memory', '--port=0'], { env: { HOST: '192.0.2.1', PLANT_STORE_TOKENS: 't=x' } });
    expect(result.code).toBe(2);
    expect(expectOneLine(result)).toBe('error: HOST (--host): cannot listen on 192.0.2.1: no such local address');
  });
});

describe('a port in use', () => {
  let blocker: Server;
  let port: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  it('exits with status 1 and one clear line', async () => {
    const result = await runCli(['serve', '--storage=memory', `--port=${port}`], { env: { PLANT_STORE_TOKENS: 't=x' } });
    expect(result.code).toBe(1);
    expect(expectOneLine(result)).toBe(`error: cannot listen on 127.0.0.1:${port}: the port is already in use (set PORT (--port))`);
  });
});
