import { createServer, connect, type Socket } from 'node:net';

/** A TCP proxy on 127.0.0.1 that a test can cut (every connection dropped, new ones refused) and restore. */
export interface TcpProxy {
  readonly port: number;
  /** Destroys every open connection and drops new ones until {@link restore}. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1, port 0, forwarding to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let cut = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((incoming) => {
    if (cut) return void incoming.destroy();
    const outgoing = connect(target.port, target.host);
    track(incoming);
    track(outgoing);
    incoming.pipe(outgoing);
    outgoing.pipe(incoming);
    incoming.on('close', () => outgoing.destroy());
    outgoing.on('close', () => incoming.destroy());
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
      cut = true;
      dropAll();
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        dropAll();
        server.close(() => resolve());
      }),
  };
}
