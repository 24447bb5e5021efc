import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestIssuer, type TestIssuer, type TestKey } from '@plant-store/auth-jwt/testing';
import { runCli, startServe } from '../support/cli-process.js';

// `plant-store serve` with the PLANT_STORE_JWT_* settings of docs/authentication.md, as a real process.
describe('plant-store serve with JWT', () => {
  let issuer: TestIssuer;
  let key: TestKey;
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-jwt-cli-'));
  beforeAll(async () => {
    issuer = await createTestIssuer();
    key = await issuer.createKey('ES256');
    issuer.publish(key);
  });
  afterAll(async () => {
    await issuer.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const call = (url: string, token: string) => fetch(`${url}/plants`, { headers: { authorization: `Bearer ${token}` } });

  it('accepts JWTs from a JWKS URL next to static tokens, and prints no development token', async () => {
    const service = await startServe(['--storage', 'memory', '--port', '0', '--tokens', 'static=a'], {
      env: { PLANT_STORE_JWT_JWKS_URL: issuer.jwksUrl, PLANT_STORE_JWT_ISSUER: issuer.issuer, PLANT_STORE_JWT_AUDIENCE: issuer.audience },
    });
    try {
      expect((await call(service.url, await issuer.sign(key))).status).toBe(200);
      expect((await call(service.url, 'static')).status).toBe(200);
      expect((await call(service.url, await issuer.sign(key, { aud: 'someone-else' }))).status).toBe(401);
    } finally {
      await service.stop();
    }
  });

  it('logs why a JWT was refused, never the token, and answers the client as before', async () => {
    const service = await startServe(['--storage', 'memory', '--port', '0'], {
      env: { PLANT_STORE_JWT_JWKS_URL: issuer.jwksUrl, PLANT_STORE_JWT_ISSUER: issuer.issuer, PLANT_STORE_JWT_AUDIENCE: issuer.audience },
    });
    try {
      const past = Date.now() - 3_600_000;
      const tokens = [await issuer.sign(key, { aud: 'someone-else' }), await issuer.sign(key, {}, past), await issuer.sign(key, { tenant: undefined })];
      for (const token of tokens) {
        const refused = await call(service.url, token);
        expect(refused.status).toBe(401);
        expect(await refused.json()).toEqual({ error: 401, message: 'invalid bearer token' });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      const reasons = service.logs().filter((line) => line['msg'] === 'JWT refused');
      expect(reasons).toMatchObject([
        { level: 'info', reason: 'unexpected "aud" claim value', aud: 'someone-else' },
        { level: 'info', reason: '"exp" claim timestamp check failed' },
        { level: 'info', reason: 'no "sub" or no "tenant" claim (a non-empty string)' },
      ]);
      for (const token of tokens) expect(service.stdout()).not.toContain(token.split('.')[2]);
    } finally {
      await service.stop();
    }
  });

  it('accepts JWTs from a JWKS file alone, even with NODE_ENV=production', async () => {
    const file = join(folder, 'jwks.json');
    writeFileSync(file, JSON.stringify(issuer.jwks()));
    const service = await startServe(['--storage', 'memory', '--port', '0', '--jwt-jwks-file', file, '--jwt-issuer', issuer.issuer], {
      env: { NODE_ENV: 'production', PLANT_STORE_JWT_AUDIENCE: issuer.audience },
    });
    try {
      expect(service.stderr()).not.toContain('development token');
      expect((await call(service.url, await issuer.sign(key))).status).toBe(200);
      expect((await call(service.url, await issuer.sign(key, { tenant: undefined }))).status).toBe(401);
    } finally {
      await service.stop();
    }
  });

  it('asks a JWKS that failed its first fetch again after a second, not a full cooldown', async () => {
    issuer.behaviour = 'fail';
    const service = await startServe(['--storage', 'memory', '--port', '0'], {
      env: { PLANT_STORE_JWT_JWKS_URL: issuer.jwksUrl, PLANT_STORE_JWT_ISSUER: issuer.issuer, PLANT_STORE_JWT_AUDIENCE: issuer.audience },
    });
    try {
      const token = await issuer.sign(key);
      const down = await call(service.url, token);
      expect(down.status).toBe(503);
      expect(down.headers.get('retry-after')).toBe('1');
      issuer.behaviour = 'serve';
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await call(service.url, token)).status).toBe(200);
    } finally {
      issuer.behaviour = 'serve';
      await service.stop();
    }
  });

  it('refuses to start on a JWKS file that holds no keys, naming the variable', async () => {
    const file = join(folder, 'empty.json');
    writeFileSync(file, '{"keys":[]}');
    const exit = await runCli(['serve', '--storage', 'memory', '--jwt-jwks-file', file, '--jwt-issuer', 'i', '--jwt-audience', 'a']);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/^error: PLANT_STORE_JWT_JWKS_FILE \(--jwt-jwks-file\): .+\n$/);
  });
});
