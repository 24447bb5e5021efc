import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli-process.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import { startReceiver } from '../support/webhook-receiver.js';

// An endpoint's rateLimit (deliveries per second) holds for the service as a
// whole: two `plant-store serve` processes on one PostgreSQL schema share
// one budget per endpoint, so together they deliver no faster than one
// would. A real receiver timestamps every arrival.

const TOKEN = 's3cret';
const RATE_LIMIT = 5;
const PLANTS = 40;

describe.skipIf(!postgresAvailable)('rateLimit across instances on one PostgreSQL database', () => {
  const schemas = testSchemas();
  const running: ServeProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((service) => service.stop('SIGKILL').catch(() => undefined)));
    await schemas.dropAll();
  });

  it("two instances together deliver no faster than the endpoint's rateLimit allows, and deliver everything", { timeout: 120_000 }, async () => {
    const receiver = await startReceiver();
    const schema = schemas.next();
    const start = async () => {
      const service = await startServe(['--port', '0', '--storage', 'postgres', '--db-schema', schema, '--tokens', `${TOKEN}=acme`, '--log-level', 'warn'], {
        env: { PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL, PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' },
      });
      running.push(service);
      return service;
    };
    const instances = [await start(), await start()];
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

    const created = await fetch(`${instances[0]!.url}/webhooks/endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url('/limited'), rateLimit: RATE_LIMIT }),
    });
    expect(created.status).toBe(201);

    // Queue the deliveries through both instances, as fast as they take them.
    const responses = await Promise.all(
      Array.from({ length: PLANTS }, (_, index) =>
        fetch(`${instances[index % 2]!.url}/plants`, { method: 'POST', headers, body: JSON.stringify({ id: index + 1, name: `plant ${index + 1}` }) }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(PLANTS).fill(200));

    // Everything arrives, throttled, never dropped.
    await vi.waitFor(() => expect(new Set(receiver.at('/limited').map((request) => request.headers['webhook-id'])).size).toBe(PLANTS), {
      timeout: 60_000,
      interval: 250,
    });

    // Each attempt takes its place in a one-second budget before it starts,
    // and the delivery log records when it started: under load the start can
    // fall into the next second, so single seconds may show a few more than
    // the limit. What sharing guarantees is the pace: together the instances
    // need as long as one would, about (PLANTS / RATE_LIMIT - 1) seconds from
    // the first start to the last; two budgets of their own would halve it.
    const starts = (await attemptStarts(schema)).sort((a, b) => a - b);
    const spanS = (starts.at(-1)! - starts[0]!) / 1000;
    const perSecond = new Map<number, number>();
    for (const at of starts) perSecond.set(Math.floor(at / 1000), (perSecond.get(Math.floor(at / 1000)) ?? 0) + 1);
    expect(spanS, `attempts per second: ${JSON.stringify([...perSecond.values()])}`).toBeGreaterThanOrEqual(PLANTS / RATE_LIMIT - 2);
    // No message needed a second attempt: the throttle released and waited, it never failed an attempt.
    expect(receiver.at('/limited')).toHaveLength(PLANTS);

    await receiver.close();
  });
});

/** When each delivery attempt in the schema started, epoch ms. */
async function attemptStarts(schema: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ at: string }>(`SELECT at FROM "${schema}".webhook_attempts`);
    return rows.map((row) => Number(row.at));
  } finally {
    await client.end();
  }
}
