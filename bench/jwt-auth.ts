// In-process micro benchmark of `Authenticator.authenticate`: a static token
// against a JWT answered from the verified-token cache and JWTs verified
// every time (cache off), measured in interleaved rounds of the same run so
// the ratios compare like with like. No network: the JWKS is an object.
//
//   node --import tsx bench/jwt-auth.ts [--rounds 5] [--round-ms 400]
//
// Standalone on purpose: `pnpm bench` drives servers in child processes and
// compares them with raw node:http baselines; this measures one function.
import { parseArgs } from 'node:util';
import { jwtAuthenticator } from '@plant-store/auth-jwt';
import { createTestIssuer } from '@plant-store/auth-jwt/testing';
import { firstAuthenticator, staticTokens } from '@plant-store/core';
import type { Authenticator } from '@plant-store/core/adapter';
import { median } from './lib/stats.js';

interface Case {
  readonly name: string;
  readonly authenticator: Authenticator;
  readonly token: string;
}

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, 'round-ms': { type: 'string', default: '400' } } });
const rounds = Number(values.rounds);
const roundMs = Number(values['round-ms']);
if (!(rounds >= 1 && roundMs > 0)) throw new Error('usage: bench/jwt-auth.ts [--rounds N ≥ 1] [--round-ms MS > 0]');

const issuer = await createTestIssuer();
const keys = await Promise.all(['RS256', 'ES256', 'EdDSA'].map((alg) => issuer.createKey(alg)));
issuer.publish(...keys);
const [rs256, es256, eddsa] = keys as [typeof keys[0], typeof keys[0], typeof keys[0]];
const staticToken = 'static-token-0123456789abcdef';
const statics = staticTokens([{ token: staticToken, tenant: 'a' }]);
const jwt = (cacheSize?: number) => jwtAuthenticator({ jwks: issuer.jwks(), issuer: issuer.issuer, audience: issuer.audience, cacheSize });
// An hour of validity: no token expires during the run.
const sign = (key: typeof rs256) => issuer.sign(key, { exp: Math.floor(Date.now() / 1000) + 3600 });
const cached = jwt();

const cases: Case[] = [
  { name: 'static token', authenticator: statics, token: staticToken },
  { name: 'JWT RS256, cached', authenticator: cached, token: await sign(rs256) },
  { name: 'JWT RS256, cached, behind static tokens', authenticator: firstAuthenticator(statics, cached), token: await sign(rs256) },
  { name: 'JWT RS256, verified', authenticator: jwt(0), token: await sign(rs256) },
  { name: 'JWT ES256, verified', authenticator: jwt(0), token: await sign(es256) },
  { name: 'JWT EdDSA, verified', authenticator: jwt(0), token: await sign(eddsa) },
];
await issuer.close();

/** Sequential calls for about `ms` (the clock is read every 64 calls); calls per second. */
async function measure({ authenticator, token }: Case, ms: number): Promise<number> {
  let calls = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 64; i += 1) {
      if ((await authenticator.authenticate(token)) === undefined) throw new Error('a benchmark token was refused');
    }
    calls += 64;
    elapsed = performance.now() - started;
  }
  return (calls / elapsed) * 1000;
}

for (const entry of cases) await measure(entry, roundMs / 2); // warm-up: JIT, key import, first cache fill
const samples = cases.map(() => [] as number[]);
for (let round = 0; round < rounds; round += 1) {
  for (const [index, entry] of cases.entries()) samples[index]!.push(await measure(entry, roundMs));
}

const rates = samples.map((sample) => median(sample));
const format = (n: number) => Math.round(n).toLocaleString('en-US');
const lines = [
  `authenticate() calls per second, median of ${rounds} interleaved rounds of ${roundMs} ms (Node ${process.version}, one caller, sequential awaits)`,
  '',
  '| case | calls/s | vs static token | µs/call |',
  '|---|---:|---:|---:|',
  ...cases.map((entry, index) => {
    const rate = rates[index]!;
    return `| ${entry.name} | ${format(rate)} | ${(rate / rates[0]!).toPrecision(2)}× | ${(1e6 / rate).toFixed(2)} |`;
  }),
];
process.stdout.write(`${lines.join('\n')}\n`);
