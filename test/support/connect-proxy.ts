import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { reservePort } from './webhook-receiver.js';

/** A forward proxy on loopback that opens CONNECT tunnels, as an operator's egress proxy does. */
export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`, with `user:password@` when the proxy wants credentials. */
  readonly url: string;
  /** Each CONNECT target as asked (`host:port`), in order, whatever the answer. */
  readonly connects: string[];
  close(): Promise<void>;
}

export interface ConnectProxyOptions {
  /** Answer every CONNECT with this status (and no tunnel), e.g. 502. @default tunnel */
  readonly refuseWith?: number;
  /** Credentials (`user:password`) to demand with 407 unless sent as Basic `Proxy-Authorization`. @default none */
  readonly credentials?: string;
}

export async function connectProxy(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const connects: string[] = [];
  const tunnels = new Set<net.Socket>();
  const server = http.createServer((_, res) => res.writeHead(405).end('CONNECT only'));
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    connects.push(req.url ?? '');
    tunnels.add(client);
    client.on('close', () => tunnels.delete(client));
    client.on('error', () => {});
    const refusal = refusalOf(req, options);
    if (refusal !== undefined) return void client.end(`HTTP/1.1 ${refusal}\r\ncontent-length: 0\r\n\r\n`);
    const { hostname, port } = new URL(`tcp://${req.url}`);
    const upstream = net.connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
    tunnels.add(upstream);
    upstream.on('close', () => tunnels.delete(upstream));
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n'));
    upstream.on('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).on('error', () => {});
      client.pipe(upstream);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const userinfo = options.credentials === undefined ? '' : `${options.credentials}@`;
  return {
    url: `http://${userinfo}127.0.0.1:${port}`,
    connects,
    close: async () => {
      for (const socket of tunnels) socket.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The status line to refuse this CONNECT with, or `undefined` to open the tunnel. */
function refusalOf(req: http.IncomingMessage, options: ConnectProxyOptions): string | undefined {
  if (options.refuseWith !== undefined) return `${options.refuseWith} ${http.STATUS_CODES[options.refuseWith] ?? 'Refused'}`;
  if (options.credentials === undefined) return undefined;
  const expected = `Basic ${Buffer.from(options.credentials).toString('base64')}`;
  return req.headers['proxy-authorization'] === expected ? undefined : '407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="egress"';
}

/** A proxy URL that refuses connections: a port that was just free. */
export async function downProxyUrl(): Promise<string> {
  return `http://127.0.0.1:${await reservePort()}`;
}
