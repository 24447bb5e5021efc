import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { DestinationKind } from '@plant-store/core';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { startConsumer, type BrokerKind } from '../../test/support/broker-consumers.js';
import { startReceiver } from '../../test/support/webhook-receiver.js';
import type { BenchContext } from '../lib/bench-context.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { BENCH_TOKENS, WRITE_TOKEN } from './http-scenarios.js';

const TENANT = BENCH_TOKENS[WRITE_TOKEN]!;
const KINDS: readonly DestinationKind[] = ['http', 'amqp', 'nats', 'redis', 'mqtt'];
const LABELS: Readonly<Record<DestinationKind, string>> = {
  http: 'HTTP (loopback receiver, 204)',
  amqp: 'RabbitMQ (publisher confirms)',
  nats: 'NATS JetStream (stream ack)',
  redis: 'Redis Streams (XADD)',
  mqtt: 'MQTT 5 (QoS 1 PUBACK)',
};

export type BrokerDestinationsResult = Awaited<ReturnType<typeof runBrokerDestinationsScenario>>;

/** Where messages of one kind go, and how many have arrived (and when the last one did). */
interface Sink {
  readonly url: string;
  count(): number;
  close(): Promise<void>;
}

async function startSink(kind: DestinationKind): Promise<Sink> {
  if (kind === 'http') {
    const receiver = await startReceiver();
    return { url: receiver.url(), count: () => receiver.messages.size, close: () => receiver.close() };
  }
  const consumer = await startConsumer(kind as BrokerKind);
  return { url: consumer.url(), count: () => consumer.received.length, close: () => consumer.close() };
}

/** N plants of one tenant, each announced to its one endpoint (at `url`), queued through the storage before the service starts. */
async function queueBacklog(dbFile: string, url: string, plants: number): Promise<void> {
  const storage = await sqliteStorage({ path: dbFile });
  try {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    await storage.endpoints.create(
      { id: 'ep_bench_destination', tenant: TENANT, url, secret, ordering: 'none', eventTypes: ['plant.created'], createdAt: Date.now() },
      50,
    );
    for (let first = 1; first <= plants; first += 100) {
      const ids = Array.from({ length: Math.min(100, plants - first + 1) }, (_, index) => BigInt(first + index));
      const event = (id: bigint) => ({ eventType: 'plant.created' as const, payload: `{"id":${id},"name":"plant ${id}"}`, createdAt: Date.now() });
      await Promise.all(ids.map((id) => storage.plants.create(TENANT, { id, name: `plant ${id}` }, [], event(id))));
    }
  } finally {
    await storage.close();
  }
}

/** Polls until `sink` holds `count` messages; resolves with when it saw the last (harness clock, ms). */
async function drained(sink: Sink, count: number, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (sink.count() < count) {
    if (performance.now() > deadline) throw new Error(`${sink.count()} of ${count} messages arrived within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return performance.now();
}

/**
 * Deliveries/s by destination kind: a backlog of N `plant.created` messages to one tenant endpoint, queued through the
 * storage (SQLite) before the service starts, drained by the service to a loopback HTTP receiver or to the local broker
 * (RabbitMQ, NATS JetStream, Redis, Mosquitto) and its consumer; from the service's ready line to the last message consumed.
 */
export async function runBrokerDestinationsScenario(context: BenchContext) {
  const plants = context.options.webhookPlants;
  const runs = [];
  for (const kind of KINDS) {
    const sink = await startSink(kind);
    const dbFile = join(context.workDir, `destination-${kind}.db`);
    let server: RunningServer | undefined;
    try {
      context.log(`  queueing ${plants} deliveries to ${kind}`);
      await queueBacklog(dbFile, sink.url, plants);
      const spawnedAt = performance.now();
      server = await startServer(
        context.launcher.spec('service', {
          storage: 'sqlite',
          dbFile,
          tokens: BENCH_TOKENS,
          logging: false,
          // The brokers are on loopback; the endpoint is the tenant's, so private destinations must be allowed.
          env: { PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true', PLANT_STORE_WEBHOOK_DESTINATION_KINDS: KINDS.join(',') },
          ...context.profile(`destination-${kind}`),
        }),
      );
      const readyAt = spawnedAt + server.readyMs;
      const last = await drained(sink, plants, 180_000);
      const seconds = (last - readyAt) / 1000;
      context.log(`  ${kind}: ${plants} deliveries in ${seconds.toFixed(2)} s → ${(plants / seconds).toFixed(0)}/s`);
      runs.push({ kind, deliveries: plants, seconds, perSecond: plants / seconds });
    } finally {
      await server?.stop();
      await sink.close();
    }
  }
  const http = runs.find((run) => run.kind === 'http');
  return { plants, runs: runs.map((run) => ({ ...run, ratio: http ? run.perSecond / http.perSecond : undefined })) };
}

/** The report's section for the scenario. */
export function brokerDestinationsSection(result: BrokerDestinationsResult | undefined): string {
  if (!result) return '';
  const rows = result.runs.map((run) =>
    [
      LABELS[run.kind],
      `**${Math.round(run.perSecond).toLocaleString('en-US')}/s**`,
      `${run.seconds.toFixed(2)} s`,
      run.ratio === undefined ? '—' : `${run.ratio.toFixed(2)}x`,
    ].join(' | '),
  );
  return `## Destinations beyond HTTP (service on SQLite, ${result.plants.toLocaleString('en-US')} plant.created messages, one endpoint)

| destination | deliveries/s | backlog drained in | against HTTP |
|---|---:|---:|---:|
${rows.map((row) => `| ${row} |`).join('\n')}

Each backlog is queued before the service starts and drained to the local broker (or receiver) on loopback; a message counts when its consumer has it.`;
}
