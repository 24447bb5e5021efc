import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { eventually } from './eventually.js';

// The shared NATS and Mosquitto take any login (they run without accounts), so a refused login needs a broker of its own:
// the same server binary, started on a free loopback port with accounts on, and stopped by the test.

/** A broker started for one test that refuses every login but `user`/`password` (Mosquitto: every login). */
export interface LockedBroker {
  readonly port: number;
  close(): Promise<void>;
}

const BINARIES = { nats: 'nats-server', mqtt: 'mosquitto' } as const;

/** Where the broker's server binary is (on PATH, or in /usr/sbin where the Debian packages put them); `undefined` without it. */
export function brokerBinary(kind: keyof typeof BINARIES): string | undefined {
  const folders = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  return folders.map((folder) => join(folder, BINARIES[kind])).find((path) => path !== BINARIES[kind] && existsSync(path));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });

/** Starts the broker of `kind` with accounts on; rejects when its binary is missing (check {@link brokerBinary} first). */
export async function startLockedBroker(kind: keyof typeof BINARIES, user: string, password: string): Promise<LockedBroker> {
  const binary = brokerBinary(kind);
  if (binary === undefined) throw new Error(`${BINARIES[kind]} is not installed`);
  const port = await freePort();
  const folder = await mkdtemp(join(tmpdir(), 'plant-store-locked-broker-'));
  let args: string[];
  if (kind === 'nats') {
    args = ['-a', '127.0.0.1', '-p', String(port), '--user', user, '--pass', password];
  } else {
    // No password file: with anonymous logins off, Mosquitto refuses every login.
    const config = join(folder, 'mosquitto.conf');
    await writeFile(config, `listener ${port} 127.0.0.1\nallow_anonymous false\npersistence false\n`);
    args = ['-c', config];
  }
  const child = spawn(binary, args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await eventually(() => accepts(port), `${BINARIES[kind]} to listen on ${port}`);
  return {
    port,
    async close() {
      child.kill('SIGTERM');
      await exited;
      await rm(folder, { recursive: true, force: true });
    },
  };
}
