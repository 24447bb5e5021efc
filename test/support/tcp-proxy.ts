import { createServer, connect, type Socket } from 'node:net';

/** A TCP proxy on 127.0.0.1 that a test can cut, stall and restore, to play a lost database. */
export interface TcpProxy {
  readonly port: number;
  /** Destroys every open connection and drops new ones until {@link restore}: the database is gone. */
  cut(): void;
  /**
   * Stops forwarding on every open connection, for good, and holds new ones
   * without forwarding until {@link restore}: packets vanish, nothing closes
   * (a network that silently drops everything).
   */
  stall(): void;
  /** New connections are forwarded again; stalled ones stay stalled. */
  restore(): void;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1, port 0, forwarding to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let mode: 'forward' | 'cut' | 'stall' = 'forward';
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((incoming) => {
    if (mode === 'cut') return void incoming.destroy();
    track(incoming);
    if (mode === 'stall') return void incoming.pause();
    const outgoing = connect(target.port, target.host);
    track(outgoing);
    const pair: [Socket, Socket] = [incoming, outgoing];
    pairs.add(pair);
    incoming.pipe(outgoing);
    outgoing.pipe(incoming);
    incoming.on('close', () => (outgoing.destroy(), pairs.delete(pair)));
    outgoing.on('close', () => (incoming.destroy(), pairs.delete(pair)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: address.port,
    cut() {
      mode = 'cut';
      dropAll();
    },
    stall() {
      mode = 'stall';
      for (const [incoming, outgoing] of pairs) {
        incoming.unpipe(outgoing);
        outgoing.unpipe(incoming);
        incoming.pause();
        outgoing.pause();
      }
      pairs.clear();
    },
    restore() {
      mode = 'forward';
    },
    close: () =>
      new Promise<void>((resolve) => {
        dropAll();
        server.close(() => resolve());
      }),
  };
}
