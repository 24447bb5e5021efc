import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { readBody } from './read-body.js';

interface Read {
  readonly body: string;
  /** 'data' listeners on the request while the read was pending: 0 when the body was taken from the buffer at once. */
  readonly dataListeners: number;
}

/**
 * Sends `parts` over one raw connection to a server whose handler awaits
 * once, as the routes do before reading (authentication), then reads the
 * body. The first part is written at once; the others only once the read
 * has begun, so they cannot reach the server early however slow it is.
 */
async function readOverSocket(parts: readonly string[]): Promise<Read> {
  let reading: (() => void) | undefined;
  const begun = new Promise<void>((resolve) => (reading = resolve));
  let seen: ((read: Read) => void) | undefined;
  const read = new Promise<Read>((resolve) => (seen = resolve));
  const server = createServer(async (req: IncomingMessage, res) => {
    await Promise.resolve();
    const pending = readBody(req, 1024);
    const dataListeners = req.listenerCount('data');
    reading!();
    seen!({ body: await pending, dataListeners });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  try {
    socket.write(parts[0]!);
    await begun;
    for (const part of parts.slice(1)) {
      socket.write(part);
      // Separate packets for a chunked body's pieces.
      await sleep(5);
    }
    return await read;
  } finally {
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}

const head = (headers: string) => `POST /plants HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\n${headers}\r\n`;

describe('readBody', () => {
  it('takes a body that came with its head from the buffer, without listening for it', async () => {
    const body = '{"id":1,"name":"Fern ünïcødé"}';
    const read = await readOverSocket([`${head(`content-length: ${Buffer.byteLength(body)}\r\n`)}${body}`]);
    expect(read).toEqual({ body, dataListeners: 0 });
  });

  it('waits for a declared body that arrives after its head', async () => {
    const read = await readOverSocket([`${head('content-length: 19\r\n')}{"id":1,`, '"name":"x"}']);
    expect(read).toEqual({ body: '{"id":1,"name":"x"}', dataListeners: 1 });
  });

  it('listens for a chunked body even when its first chunk came with the head', async () => {
    const read = await readOverSocket([`${head('transfer-encoding: chunked\r\n')}4\r\n{"id\r\n`, '3\r\n":1\r\n1\r\n}\r\n0\r\n\r\n']);
    expect(read).toEqual({ body: '{"id":1}', dataListeners: 1 });
  });

  it('gives each of two requests sent in one write its own body, and answers both on the connection', async () => {
    const bodies: string[] = [];
    const server = createServer(async (req, res) => {
      await Promise.resolve();
      bodies.push(await readBody(req, 1024));
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    try {
      let received = '';
      const answered = new Promise<void>((resolve) =>
        socket.on('data', (chunk) => {
          received += chunk.toString('latin1');
          if (received.split('HTTP/1.1 200').length === 3) resolve();
        }),
      );
      socket.write(`${head('content-length: 7\r\n')}{"a":1}${head('content-length: 7\r\n')}{"b":2}`);
      await answered;
      expect(bodies).toEqual(['{"a":1}', '{"b":2}']);
    } finally {
      socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
