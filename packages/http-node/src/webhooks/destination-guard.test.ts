import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo, type LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DESTINATION_NOT_ALLOWED, guardedLookup, refusesLiteral, type ResolveAll } from './guarded-lookup.js';

// Real receivers on loopback. Each counts TCP connections, so a test can
// prove a refused request never reached it (not even a SYN that completed).
interface Receiver {
  readonly port: number;
  readonly host: string;
  connections: number;
  readonly requests: string[];
}

const servers: net.Server[] = [];
const agents: http.Agent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy();
  for (const server of servers.splice(0)) {
    if (server instanceof http.Server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function receiver(host = '127.0.0.1'): Promise<Receiver> {
  const state = { connections: 0, requests: [] as string[] };
  const server = http.createServer((req, res) => {
    state.requests.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.on('connection', () => state.connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, { port, host });
}

function agent(options: http.AgentOptions = {}): http.Agent {
  const created = new http.Agent({ keepAlive: true, ...options });
  agents.push(created);
  return created;
}

type Outcome = { status: number; remoteAddress: string | undefined } | { error: NodeJS.ErrnoException };

/** POSTs to `url` with extra request options and reports the status and the peer, or the error. */
function post(url: string, options: http.RequestOptions = {}, client: typeof http | typeof https = http): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = client.request(url, { method: 'POST', ...options });
    req.on('response', (res) => {
      const remoteAddress = res.socket.remoteAddress;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, remoteAddress }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error }));
    req.end('{}');
  });
}

const refused = { error: expect.objectContaining({ code: DESTINATION_NOT_ALLOWED, message: 'destination not allowed' }) };

/** Sends through the guard the way a transport would: literal check first, then the lookup on the request. */
function guardedPost(url: string, requestOptions: http.RequestOptions = {}, client: typeof http | typeof https = http): Promise<Outcome> {
  if (refusesLiteral(new URL(url))) return Promise.resolve({ error: Object.assign(new Error('destination not allowed'), { code: DESTINATION_NOT_ALLOWED }) });
  return post(url, { lookup: guardedLookup(), ...requestOptions }, client);
}

describe('the destination guard against a real receiver on 127.0.0.1', () => {
  it('refuses a name that resolves to loopback at connect, before any connection is made', async () => {
    const target = await receiver();
    expect(await guardedPost(`http://localhost:${target.port}/hook`)).toEqual(refused);
    expect(target.connections).toBe(0);
  });

  it.each(['127.0.0.1', '127.1', '0x7f.0.0.1', '2130706433', '[::ffff:127.0.0.1]'])('refuses the literal %s without connecting', async (host) => {
    const target = await receiver();
    const url = `http://${host}:${target.port}/hook`;
    expect(refusesLiteral(new URL(url))).toBe(true);
    expect(await guardedPost(url)).toEqual(refused);
    expect(target.connections).toBe(0);
  });

  it('lets a public literal through to the lookup', () => {
    expect(refusesLiteral(new URL('http://93.184.216.34/hook'))).toBe(false);
    expect(refusesLiteral(new URL('http://example.com/hook'))).toBe(false);
  });

  it('also guards https (refused before any TLS handshake)', async () => {
    const target = await receiver();
    const url = `https://localhost:${target.port}/hook`;
    expect(await guardedPost(url, {}, https)).toEqual(refused);
    expect(target.connections).toBe(0);
  });

  it('guards every socket of an agent built with the lookup, without per-request options', async () => {
    const target = await receiver();
    const guarded = agent({ lookup: guardedLookup() });
    expect(await post(`http://localhost:${target.port}/`, { agent: guarded })).toEqual(refused);
    expect(target.connections).toBe(0);
  });

  it('needs an agent of its own: a socket pooled for a trusted request is reused without a lookup', async () => {
    // Why restricted requests must not share an agent with trusted ones (see guardedLookup).
    const target = await receiver();
    const url = `http://localhost:${target.port}/`;
    const shared = agent({ maxSockets: 1 });
    expect(await post(url, { agent: shared })).toMatchObject({ status: 204 }); // trusted, leaves a pooled socket
    expect(await guardedPost(url, { agent: shared })).toMatchObject({ status: 204 }); // slips through
    const own = agent({ maxSockets: 1 });
    expect(await guardedPost(url, { agent: own })).toEqual(refused);
    expect(target.requests).toHaveLength(2);
  });
});

describe('DNS rebinding: what the guard checks is what is connected', () => {
  // 127.0.0.1 stands in for a public address and 127.0.0.2 for a private
  // one (both are local, so nothing leaves the machine): the guard is told
  // only 127.0.0.1 is allowed. A receiver listens on each, same port.
  const isAllowed = (address: string) => address === '127.0.0.1';

  async function pair() {
    const allowed = await receiver('127.0.0.1');
    const forbidden = await listenOn('127.0.0.2', allowed.port);
    return { allowed, forbidden, url: `http://rebind.test:${allowed.port}/hook` };
  }

  /** A resolver that gives each call the next answer in `answers`, then repeats the last one. */
  function scriptedResolver(...answers: LookupAddress[][]) {
    let calls = 0;
    const resolve: ResolveAll = (_, __, callback) => {
      const answer = answers[Math.min(calls++, answers.length - 1)]!;
      setImmediate(() => callback(null, answer));
    };
    return { resolve, calls: () => calls };
  }

  it('connects to exactly the address it approved, resolving once per connection', async () => {
    const { allowed, forbidden, url } = await pair();
    const resolver = scriptedResolver([{ address: '127.0.0.1', family: 4 }], [{ address: '127.0.0.2', family: 4 }]);
    const approved: string[] = [];
    const guard = guardedLookup({ resolve: resolver.resolve, isAllowed });
    const recording: LookupFunction = (hostname, options, callback) =>
      guard(hostname, options, (error, address, family) => {
        if (!error) approved.push(...(Array.isArray(address) ? address.map((entry) => entry.address) : [address]));
        callback(error, address, family);
      });
    const outcome = await post(url, { lookup: recording, agent: false });
    expect(outcome).toEqual({ status: 204, remoteAddress: '127.0.0.1' });
    expect(approved).toEqual(['127.0.0.1']);
    expect(resolver.calls()).toBe(1);
    expect(allowed.requests).toEqual(['POST /hook']);
    expect(forbidden.connections).toBe(0);
  });

  it('a check made ahead of time cannot be fooled into a private connection: the guard resolves again and refuses', async () => {
    const { allowed, forbidden, url } = await pair();
    // First answer public (what a check-then-connect design would have checked), every later one private.
    const resolver = scriptedResolver([{ address: '127.0.0.1', family: 4 }], [{ address: '127.0.0.2', family: 4 }]);
    const precheck = await new Promise<LookupAddress[]>((resolve) => resolver.resolve('rebind.test', { all: true }, (_, addresses) => resolve(addresses)));
    expect(precheck.every(({ address }) => isAllowed(address))).toBe(true);
    const outcome = await post(url, { lookup: guardedLookup({ resolve: resolver.resolve, isAllowed }), agent: false });
    expect(outcome).toEqual({ error: expect.objectContaining({ code: DESTINATION_NOT_ALLOWED, address: '127.0.0.2' }) });
    expect(forbidden.connections).toBe(0);
    expect(allowed.connections).toBe(0);
  });

  it('a name answering public first and private second cannot sneak through, whichever the connection tries', async () => {
    const { allowed, forbidden, url } = await pair();
    const mixed = scriptedResolver([
      { address: '127.0.0.1', family: 4 },
      { address: '127.0.0.2', family: 4 },
    ]);
    for (const autoSelectFamily of [true, false]) {
      // autoSelectFamily reaches net.connect, though the http typings do not declare it.
      const options: http.RequestOptions & { autoSelectFamily: boolean } = {
        lookup: guardedLookup({ resolve: mixed.resolve, isAllowed }),
        agent: false,
        autoSelectFamily,
      };
      const outcome = await post(url, options);
      expect(outcome).toEqual(refused);
    }
    expect(forbidden.connections).toBe(0);
    expect(allowed.connections).toBe(0);
  });
});

/** A bare TCP listener that only counts connections. */
async function listenOn(host: string, port: number): Promise<{ connections: number }> {
  const state = { connections: 0 };
  const server = net.createServer((socket) => {
    state.connections++;
    socket.destroy();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return state;
}
