import { connect, type Socket } from 'node:net';

/** A raw TCP connection to the server, for requests fetch cannot make (malformed, trickled, oversized). */
export interface RawConnection {
  readonly socket: Socket;
  /** Everything received so far (latin1). */
  received(): string;
  /** Resolves with everything received once the server closed the connection. */
  readonly closed: Promise<string>;
  /** Writes unless the connection is already closed; resolves false then. */
  write(data: string | Buffer): Promise<boolean>;
}

export function openRaw(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let isClosed = false;
    const closed = new Promise<string>((resolveClosed) => {
      socket.on('close', () => {
        isClosed = true;
        resolveClosed(Buffer.concat(chunks).toString('latin1'));
      });
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // Resets after the server closed are expected in these tests.
    socket.on('error', () => {});
    socket.once('connect', () =>
      resolve({
        socket,
        closed,
        received: () => Buffer.concat(chunks).toString('latin1'),
        write: (data) =>
          new Promise((resolveWrite) => {
            if (isClosed || socket.destroyed) return resolveWrite(false);
            socket.write(data, (error) => resolveWrite(!error));
          }),
      }),
    );
    socket.once('error', reject);
  });
}

/** Sends raw request text and resolves with everything received once the server closes (use `Connection: close`). */
export async function rawRequest(port: number, text: string): Promise<string> {
  const connection = await openRaw(port);
  await connection.write(text);
  return connection.closed;
}

/** Status code of the first response in raw HTTP text, or undefined. */
export function statusOf(raw: string): number | undefined {
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(raw);
  return match ? Number(match[1]) : undefined;
}

/** Body of the first response in raw HTTP text (everything after the blank line). */
export function bodyOf(raw: string): string {
  const index = raw.indexOf('\r\n\r\n');
  return index === -1 ? '' : raw.slice(index + 4);
}

/** Value of a header of the first response in raw HTTP text (case-insensitive), or undefined. */
export function headerOf(raw: string, name: string): string | undefined {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n'));
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (line.slice(0, colon).toLowerCase() === name.toLowerCase()) return line.slice(colon + 1).trim();
  }
  return undefined;
}
