import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../support/cli-process.js';

const packageVersion = (JSON.parse(readFileSync(`${ROOT}packages/server/package.json`, 'utf8')) as { version: string }).version;

describe.concurrent('plant-store commands', () => {
  it('--version prints the package version', async () => {
    const result = await runCli(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${packageVersion}\n`, stderr: '' });
  });

  it('--help lists the commands on stdout', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: plant-store <command>/);
    expect(result.stdout).toContain('serve');
    expect(result.stdout).toContain('webhooks');
  });

  it('serve --help documents every variable with its flag and default', async () => {
    const result = await runCli(['serve', '--help']);
    expect(result.code).toBe(0);
    for (const [flag, variable] of [
      ['--port', 'PORT'],
      ['--host', 'HOST'],
      ['--storage', 'PLANT_STORE_STORAGE'],
      ['--db', 'PLANT_STORE_DB'],
      ['--tokens', 'PLANT_STORE_TOKENS'],
      ['--tokens-file', 'PLANT_STORE_TOKENS_FILE'],
      ['--webhooks', 'PLANT_STORE_WEBHOOKS'],
      ['--webhooks-file', 'PLANT_STORE_WEBHOOKS_FILE'],
      ['--webhook-retry', 'PLANT_STORE_WEBHOOK_RETRY'],
      ['--webhook-timeout', 'PLANT_STORE_WEBHOOK_TIMEOUT'],
      ['--webhook-max-endpoints', 'PLANT_STORE_WEBHOOK_MAX_ENDPOINTS'],
      ['--max-body', 'PLANT_STORE_MAX_BODY'],
      ['--log-level', 'PLANT_STORE_LOG_LEVEL'],
      ['--metrics', 'PLANT_STORE_METRICS'],
    ]) {
      expect(result.stdout).toMatch(new RegExp(`${flag} <value>\\n\\s+${variable}: `));
    }
    expect(result.stdout).toContain('(default: 5s,5m,30m,2h,5h,10h,10h)');
    expect(result.stdout).toMatch(/PLANT_STORE_WEBHOOK_MAX_ENDPOINTS: most webhook endpoints one tenant may have .*\(default: 50\)\n/);
  });

  it('serve --help names every duration unit the settings accept', async () => {
    const result = await runCli(['serve', '--help']);
    expect(result.stdout).toMatch(/--webhook-retry <value>\n\s+PLANT_STORE_WEBHOOK_RETRY: delays between webhook attempts \(ms, s, m, h, d;/);
  });

  it('without a command prints the usage on stderr and exits 2', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Usage: plant-store <command>/);
  });

  it.each([[['webhooks', 'list', '--storage', 'memory']], [['portal-link', '--tenant', 'acme', '--base-url', 'http://x'], { PLANT_STORE_STORAGE: 'memory' }]])(
    '%j refuses memory storage, which only the service itself can see',
    async (args, env?: Record<string, string>) => {
      const result = await runCli(args, { env });
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(
        /^error: PLANT_STORE_STORAGE \(--storage\) is memory: only the service's own process can see its data \(see plant-store \S+ --help\)\n$/,
      );
    },
  );

  it('rejects an unknown command with one line and status 2', async () => {
    const result = await runCli(['server']);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: "error: unknown command 'server' (see plant-store --help)\n" });
  });
});
