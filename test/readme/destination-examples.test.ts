import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as natsConnect } from '@nats-io/transport-node';
import amqp from 'amqplib';
import { createClient } from 'redis';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { brokerTransports } from '@plant-store/broker-transports';
import { TSX } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';

// The consumers of docs/destinations.md, run as written (with names of their own) against the real brokers: each
// verifies a signed message the broker transport publishes, and prints it.

const root = join(import.meta.dirname, '..', '..');
const page = join(root, 'docs', 'destinations.md');

/** The `ts` blocks of one `## ` section of the page, in order. */
async function tsBlocks(heading: string): Promise<string[]> {
  const text = await readFile(page, 'utf8');
  const section = text.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  if (section === undefined) throw new Error(`docs/destinations.md has no "## ${heading}" section`);
  return [...section.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
}

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => {});
});

/** Runs `code` from a scratch folder in the repo (so packages resolve); resolves with a reader of its stdout so far. */
async function start(code: string, secret: string): Promise<() => string> {
  const scratch = await mkdtemp(join(root, 'test', 'readme', '.run-'));
  cleanups.push(() => rm(scratch, { recursive: true, force: true }));
  const file = join(scratch, 'example.ts');
  await writeFile(file, code);
  const child = spawn(process.execPath, ['--conditions=source', '--import', TSX, file], {
    env: { ...process.env, NODE_OPTIONS: '', WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  return () => stdout;
}

const CONSUMERS = [
  { kind: 'RabbitMQ', block: 0, url: (name: string) => `amqp://guest:guest@127.0.0.1:5672/?exchange=${name}&routingKey=plant.created` },
  { kind: 'NATS JetStream', block: 1, url: (name: string) => `nats://127.0.0.1:4222/${name}.created` },
  { kind: 'Redis Streams', block: 2, url: (name: string) => `redis://127.0.0.1:6379/0?stream=${name}` },
  { kind: 'MQTT 5', block: 3, url: (name: string) => `mqtt://127.0.0.1:1883/${name}/created` },
] as const;

/** Removes what an example made on the brokers under `name`. */
async function removeNamed(name: string): Promise<void> {
  const connection = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
  const channel = await connection.createChannel();
  await channel.deleteQueue(`${name}-consumer`);
  await channel.deleteExchange(name);
  await connection.close();
  const nc = await natsConnect({ servers: '127.0.0.1:4222' });
  await (await jetstreamManager(nc)).streams.delete(name).catch(() => {});
  await nc.close();
  const redis = await createClient({ url: 'redis://127.0.0.1:6379' }).connect();
  await redis.del(name);
  await redis.close();
}

describe('docs/destinations.md consumers', () => {
  it.each(CONSUMERS)('the $kind consumer verifies and prints a published webhook', async ({ block, url }) => {
    const code = (await tsBlocks('URL shapes'))[block];
    expect(code).toBeDefined();
    const name = `plantsdoc${randomUUID().slice(0, 8)}`;
    cleanups.push(() => removeNamed(name));
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const output = await start(code!.replaceAll('plants', name), secret);
    const transport = brokerTransports();
    cleanups.push(() => transport.close());
    const body = '{"id":9223372036854775807,"name":"Fern"}';
    // Published until the consumer has subscribed (before that, a message may be unroutable or go unseen).
    await eventually(
      async () => {
        const timestamp = new Date();
        const headers = {
          'content-type': 'application/json',
          'webhook-id': 'msg_docs',
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign('msg_docs', timestamp, body),
        };
        await transport.send({ url: url(name), headers, body, timeoutMs: 5_000, signal: new AbortController().signal });
        await new Promise((resolve) => setTimeout(resolve, 200));
        return output().includes('verified msg_docs');
      },
      'the consumer to print the message',
      30_000,
    );
    expect(output()).toContain("verified msg_docs { id: 9223372036854775807n, name: 'Fern' }");
  });

  it('the host application example composes a store with the broker transports and closes them', async () => {
    const [code] = await tsBlocks('In a host application');
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    await start(code!, secret);
    const child = children.at(-1)!;
    const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(exitCode).toBe(0);
  });
});
