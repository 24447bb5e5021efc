import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tokenDigest } from '@plant-store/core/adapter';
import { READY_LINE, ROOT, startServe, type ServeProcess } from '../support/cli-process.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-serve-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function bearer(token: string) {
  return { authorization: `Bearer ${token}` };
}

const DEV_TOKEN_WARNING =
  /^warning: no tokens configured \(set PLANT_STORE_TOKENS \(--tokens\) or PLANT_STORE_TOKENS_FILE \(--tokens-file\)\); created a development token for tenant "default": (\S+)\n$/;

describe('serve on SQLite at the default path, without tokens (development)', () => {
  let cwd: string;
  let service: ServeProcess;
  let token: string;

  beforeAll(async () => {
    // A fresh working directory: the default ./data/plant-store.db lands in it, folder included.
    cwd = tempDir();
    service = await startServe(['--port', '0'], { cwd });
    token = DEV_TOKEN_WARNING.exec(service.stderr())?.[1] ?? '';
  });
  afterAll(async () => {
    await service.stop('SIGKILL').catch(() => {});
  });

  it('prints one ready line with the real URL and the storage', () => {
    const match = READY_LINE.exec(service.stdout())!;
    expect(match.index).toBe(0);
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(service.url).not.toMatch(/:0$/);
    expect(service.storage).toBe('sqlite ./data/plant-store.db');
    expect(existsSync(join(cwd, 'data', 'plant-store.db'))).toBe(true);
  });

  it('prints the development token once, with a warning, on stderr', () => {
    expect(service.stderr()).toMatch(DEV_TOKEN_WARNING);
    expect(token).toMatch(/^[\w-]{20,}$/);
  });

  it('accepts the development token for both scopes in tenant "default", and only it', async () => {
    const created = await fetch(`${service.url}/plants`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', 'x-request-id': 'create-1' },
      body: '{"id": 9223372036854775807, "name": "Monstera", "tag": "tropical"}',
    });
    expect(created.status).toBe(200);
    expect(await created.text()).toBe('{"id":9223372036854775807,"name":"Monstera","tag":"tropical"}');

    const listed = await fetch(`${service.url}/plants`, { headers: bearer(token) });
    expect(listed.status).toBe(200);
    expect(await listed.text()).toBe('[{"id":9223372036854775807,"name":"Monstera","tag":"tropical"}]');

    const wrong = await fetch(`${service.url}/plants`, { headers: bearer(`${token}x`) });
    expect(wrong.status).toBe(401);
    await wrong.body?.cancel();
  });

  it('logs one JSON line per request with method, path, status, duration and request id, and never the token', async () => {
    const response = await fetch(`${service.url}/plants/9223372036854775807`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    await response.text();
    const requestId = response.headers.get('x-request-id');
    const entry = await waitForLog(service, (log) => log['msg'] === 'request' && log['requestId'] === requestId);
    expect(entry).toMatchObject({ level: 'info', method: 'GET', path: '/plants/9223372036854775807', status: 200 });
    expect(typeof entry['durationMs']).toBe('number');
    expect(Date.parse(String(entry['time']))).not.toBeNaN();

    expect(service.logs().find((log) => log['requestId'] === 'create-1')).toMatchObject({
      method: 'POST',
      path: '/plants',
      status: 200,
    });
    // Everything after the ready line is a JSON log line.
    // Complete lines (a pipe may hand a batch of lines over in pieces).
    const stdout = service.stdout();
    const [, ...rest] = stdout.slice(0, stdout.lastIndexOf('\n')).split('\n');
    for (const line of rest) expect(() => JSON.parse(line)).not.toThrow();
    expect(service.stdout()).not.toContain(token);
  });

  it('stops on SIGTERM with status 0, and the data outlives it', async () => {
    const exit = await service.stop('SIGTERM');
    expect(exit.code).toBe(0);
    expect(service.logs().at(-1)).toMatchObject({ msg: 'stopped' });

    // Restart on the same file with a configured token: the plant is still there.
    const again = await startServe(['--port=0'], { cwd, env: { PLANT_STORE_TOKENS: 'known-token=default' } });
    try {
      expect(again.stderr()).toBe('');
      const response = await fetch(`${again.url}/plants`, { headers: bearer('known-token') });
      expect(await response.text()).toBe('[{"id":9223372036854775807,"name":"Monstera","tag":"tropical"}]');
    } finally {
      expect((await again.stop('SIGTERM')).code).toBe(0);
    }
  });
});

describe('serve in memory with configured tokens in production', () => {
  let service: ServeProcess;
  const db = join(tempDir(), 'unused', 'plants.db');

  beforeAll(async () => {
    service = await startServe([], {
      env: {
        NODE_ENV: 'production',
        PORT: '0',
        PLANT_STORE_STORAGE: 'memory',
        PLANT_STORE_DB: db,
        PLANT_STORE_TOKENS: `sha256:${tokenDigest('prod-token')}=acme, reader-token=acme`,
      },
    });
  });
  afterAll(async () => {
    await service.stop('SIGKILL').catch(() => {});
  });

  it('prints the ready line with storage memory, and no warning', () => {
    expect(service.storage).toBe('memory');
    expect(service.stderr()).toBe('');
    expect(existsSync(db)).toBe(false);
  });

  it('authenticates tokens configured by digest or in plain text', async () => {
    const create = await fetch(`${service.url}/plants`, {
      method: 'POST',
      headers: { ...bearer('prod-token'), 'content-type': 'application/json' },
      body: '{"id": 1, "name": "Fern"}',
    });
    expect(create.status).toBe(200);
    await create.text();
    const list = await fetch(`${service.url}/plants`, { headers: bearer('reader-token') });
    expect(await list.text()).toBe('[{"id":1,"name":"Fern"}]');
    expect(service.stdout()).not.toContain('prod-token');
    expect(service.stdout()).not.toContain('reader-token');
  });

  it('serves the API reference page, listed in its OpenAPI document', async () => {
    const page = await fetch(`${service.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('docs/swagger-ui-bundle.js');
    const document = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(document.paths['/docs']).toBeDefined();
  });

  it('serves only metrics that the operations page documents', async () => {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const names = [...text.matchAll(/^# TYPE (plant_store_\w+) /gm)].map((match) => match[1]!);
    expect(names.length).toBeGreaterThan(0);
    const page = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    expect(names.filter((name) => !page.includes(`| \`${name}\` |`))).toEqual([]);
  });

  it('stops on SIGINT with status 0', async () => {
    const exit = await service.stop('SIGINT');
    expect(exit.code).toBe(0);
    expect(exit.stderr).toBe('');
  });
});

function waitForLog(service: ServeProcess, predicate: (log: Record<string, unknown>) => boolean, timeoutMs = 5_000): Promise<Record<string, unknown>> {
  return vi.waitFor(
    () => {
      const found = service.logs().find(predicate);
      if (!found) throw new Error(`no matching log line in:\n${service.stdout()}`);
      return found;
    },
    { timeout: timeoutMs, interval: 20 },
  );
}
