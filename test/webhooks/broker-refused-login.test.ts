import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { brokerTransports } from '@plant-store/broker-transports';
import { createPlantStore } from '@plant-store/core';
import type { BrokerKind } from '../support/broker-consumers.js';
import { brokerFixtures, textLogger } from '../support/broker-fixtures.js';
import { eventually } from '../support/eventually.js';
import { brokerBinary, startLockedBroker } from '../support/locked-brokers.js';
import { TOKENS, testTokens } from '../support/test-tokens.js';
import { openStorage } from '../support/webhook-test-service.js';

// A broker that refuses the login: each attempt fails with the broker's own reason (never the password), is retried on
// the schedule, and the delivery fails after the last retry; the service goes on. RabbitMQ and Redis refuse a wrong
// password on the shared brokers; NATS and Mosquitto take any login there, so they get a broker of their own with accounts.

const WRONG = 'wr0ng-pass';
const { defer } = brokerFixtures();

/** Where a login is refused, and the broker's reason for it. */
const REFUSALS: Record<BrokerKind, { url: () => Promise<string>; reason: RegExp; missing?: string }> = {
  amqp: { url: async () => `amqp://guest:${WRONG}@127.0.0.1:5672/?exchange=amq.direct&routingKey=plants`, reason: /ACCESS_REFUSED/ },
  redis: { url: async () => `redis://plants:${WRONG}@127.0.0.1:6379/0?stream=plant-store-test-refused`, reason: /WRONGPASS/ },
  nats: {
    async url() {
      const broker = await startLockedBroker('nats', 'plants', 'right-pass');
      defer(() => broker.close());
      return `nats://plants:${WRONG}@127.0.0.1:${broker.port}/plants.created`;
    },
    reason: /Authorization Violation/i,
    ...(brokerBinary('nats') ? {} : { missing: 'nats-server is not installed' }),
  },
  mqtt: {
    async url() {
      const broker = await startLockedBroker('mqtt', 'plants', 'right-pass');
      defer(() => broker.close());
      return `mqtt://plants:${WRONG}@127.0.0.1:${broker.port}/plants/created`;
    },
    reason: /Not authorized|Bad User Name or Password/i,
    ...(brokerBinary('mqtt') ? {} : { missing: 'mosquitto is not installed' }),
  },
};

describe.each(Object.keys(REFUSALS) as BrokerKind[])('a %s broker that refuses the login', (kind) => {
  const { url, reason, missing } = REFUSALS[kind];
  if (missing) process.stderr.write(`refused-login test of ${kind} skipped: ${missing}\n`);

  it.skipIf(missing !== undefined)("fails each attempt with the broker's reason, retries, then fails the delivery", async () => {
    const logLines: string[] = [];
    const transport = brokerTransports({ idleMs: 1_000 });
    const store = createPlantStore({
      storage: await openStorage('sqlite'),
      authenticator: testTokens(),
      logger: textLogger(logLines),
      webhooks: {
        transport,
        subscriptions: [{ url: await url(), secret: `whsec_${randomBytes(32).toString('base64')}` }],
        retrySchedule: [20, 40],
        timeoutMs: 3_000,
        jitter: 0,
      },
    });
    defer(async () => {
      await store.close();
      await transport.close();
    });
    await store.plants.create(await store.authenticate(TOKENS.owner), { id: 1, name: 'Fern' });
    await eventually(async () => (await store.allTenants.webhooks.list())[0]?.status === 'failed', 'a failed delivery', 20_000);
    const [delivery] = await store.allTenants.webhooks.list();
    expect(delivery!.attempts).toHaveLength(3);
    for (const attempt of delivery!.attempts) {
      expect(attempt.error).toMatch(reason);
      expect(attempt.error).not.toContain(WRONG);
    }
    expect(logLines.join('\n')).not.toContain(WRONG);
    // The store still works: the next plant is queued and attempted like the first.
    await store.plants.create(await store.authenticate(TOKENS.owner), { id: 2, name: 'Palm' });
    await eventually(async () => (await store.allTenants.webhooks.list()).length === 2, 'the second delivery');
  });
});
