import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createPlantStore, type PlantStore } from '@plant-store/core';
import type { WebhookRequest, WebhookSendOutcome } from '@plant-store/core/adapter';
import { memoryStorage } from '@plant-store/storage-memory';
import { eventually } from '../support/eventually.js';
import { acme } from '../support/principals.js';

// A re-queued delivery keeps its attempts, and they count toward the retry schedule: one whose retries ran out gets
// exactly one attempt, and fails again if that one fails; so do resend and recover.

let store: PlantStore | undefined;
afterEach(async () => {
  await store?.close();
});

describe('a delivery put back in the queue after its retries ran out', () => {
  it('gets one attempt per requeue, resend or recover, and fails again when it fails', async () => {
    const sent: WebhookRequest[] = [];
    const transport = {
      send: async (request: WebhookRequest): Promise<WebhookSendOutcome> => {
        sent.push(request);
        return { kind: 'retry', statusCode: 500, reason: 'receiver answered 500' };
      },
    };
    const opened = createPlantStore({
      storage: memoryStorage(),
      webhooks: {
        transport,
        subscriptions: [{ url: 'http://hooks.test/a', secret: `whsec_${randomBytes(32).toString('base64')}` }],
        retrySchedule: [5, 5],
        jitter: 0,
        pollIntervalMs: 10,
      },
    });
    store = opened;
    const webhooks = opened.allTenants.webhooks;
    await opened.plants.create(acme, { id: 1, name: 'Fern' });
    const failedWith = async (attempts: number) => {
      await eventually(async () => {
        const [delivery] = await webhooks.list();
        return delivery?.status === 'failed' && delivery.attemptCount === attempts;
      }, `the delivery failed after ${attempts} attempts`);
    };
    await failedWith(3);
    const { id, endpointId } = (await webhooks.list())[0]!;

    await webhooks.requeue(id);
    await failedWith(4);
    await webhooks.resend(id);
    await failedWith(5);
    await webhooks.recover(endpointId, 0);
    await failedWith(6);
    // Nothing more is sent once each single attempt failed.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sent).toHaveLength(6);
    expect((await webhooks.get(id)).attempts.map((attempt) => attempt.error)).toEqual(Array(6).fill('receiver answered 500'));
  });
});
