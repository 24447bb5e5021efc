import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JSONWebKeySet, type JWK, type JWTPayload } from 'jose';

export interface TestKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  /** The public key as published in the JWKS (`kid`, `alg`, `use: sig`). */
  readonly jwk: JWK;
}

/** How the JWKS endpoint answers: the key set, a 503 (`fail`), a 500 (`error`), a 200 that is not JSON (`garbage`), or never (`hang`). */
export type JwksBehaviour = 'serve' | 'fail' | 'error' | 'garbage' | 'hang';

/** Claims to sign; a claim set to `undefined` is left out of the token. */
export type TestClaims = { readonly [claim: string]: unknown };

export interface TestIssuer {
  /** `http://127.0.0.1:<port>/jwks.json` */
  readonly jwksUrl: string;
  /** The default `iss` and `aud` of tokens signed here. */
  readonly issuer: string;
  readonly audience: string;
  behaviour: JwksBehaviour;
  readonly jwksRequests: number;
  /** A new key pair (extractable, so tests can misuse it); not published until `publish`. */
  createKey(alg: string, kid?: string): Promise<TestKey>;
  /** Replaces the published key set. */
  publish(...keys: readonly TestKey[]): void;
  jwks(): JSONWebKeySet;
  /** A token signed with `key`: `iss`, `aud`, `sub: "user-1"`, `tenant: "a"`, both plant scopes, `iat` now, `exp` in 5 minutes, overridden by `claims`. */
  sign(key: TestKey, claims?: TestClaims, nowMs?: number): Promise<string>;
  close(): Promise<void>;
}

/** A JWT issuer for tests (host apps' too): fresh key pairs, a JWKS served on 127.0.0.1 whose answer a test can break, and a signer. */
export async function createTestIssuer(options: { readonly audience?: string } = {}): Promise<TestIssuer> {
  const jwks = await serveJwks();
  const audience = options.audience ?? 'plant-store';
  let counter = 0;
  return {
    jwksUrl: `${jwks.base}/jwks.json`,
    issuer: jwks.base,
    audience,
    get behaviour() {
      return jwks.state.behaviour;
    },
    set behaviour(value) {
      jwks.state.behaviour = value;
    },
    get jwksRequests() {
      return jwks.state.requests;
    },
    async createKey(alg, kid = `key-${(counter += 1)}`) {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      return { kid, alg, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
    },
    publish(...keys) {
      jwks.state.published = keys.map((key) => key.jwk);
    },
    jwks: () => ({ keys: structuredClone(jwks.state.published) }),
    sign: (key, claims = {}, nowMs = Date.now()) => signToken(key, { iss: jwks.base, aud: audience }, claims, nowMs),
    close: jwks.close,
  };
}

/** The JWKS endpoint on 127.0.0.1, port 0: serves `state.published`, or fails or hangs as `state.behaviour` says. */
async function serveJwks() {
  const state = { behaviour: 'serve' as JwksBehaviour, published: [] as JWK[], requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests += 1;
    if (state.behaviour === 'hang') return;
    if (state.behaviour === 'fail') return void res.writeHead(503).end('down');
    if (state.behaviour === 'error') return void res.writeHead(500).end('internal error');
    if (state.behaviour === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": [');
    if (req.url !== '/jwks.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys: state.published }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function signToken(key: TestKey, issuedBy: { iss: string; aud: string }, claims: TestClaims, nowMs: number): Promise<string> {
  const now = Math.floor(nowMs / 1000);
  const defaults = { ...issuedBy, sub: 'user-1', tenant: 'a', scope: 'plants:read plants:write', iat: now, exp: now + 300 };
  const payload = Object.fromEntries(Object.entries({ ...defaults, ...claims }).filter(([, value]) => value !== undefined));
  return new SignJWT(payload as JWTPayload).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
}
