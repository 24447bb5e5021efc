import type { WebhookEndpoint } from '@plant-store/core';
import { describe, expect, it } from 'vitest';
import { endpointTable } from './endpoint-table.js';

const endpoint = (id: string, url: string): WebhookEndpoint => ({
  id,
  tenant: 'acme',
  status: 'enabled',
  eventTypes: ['plant.created'],
  url,
  ordering: 'none',
  createdAt: 0,
  updatedAt: 0,
});

describe('endpointTable', () => {
  it('shows a broker URL without its credentials', () => {
    const table = endpointTable([endpoint('ep_1', 'amqp://guest:hunter2@rabbit.test:5672/?exchange=plants')], new Map([['ep_1', 'hmac']]));
    expect(table).toContain('amqp://***@rabbit.test:5672/?exchange=plants');
    expect(table).not.toContain('hunter2');
  });

  it("names each endpoint's destination kind, from its URL's scheme", () => {
    const urls = ['https://example.com/h', 'amqps://rabbit.test/', 'nats://nats.test/plants', 'rediss://redis.test/0?stream=s', 'mqtt://mqtt.test/plants'];
    const table = endpointTable(
      urls.map((url, index) => endpoint(`ep_${index}`, url)),
      new Map(),
    );
    const kinds = table
      .trimEnd()
      .split('\n')
      .map((line) => line.split(/\s+/)[3]);
    expect(kinds).toEqual(['KIND', 'http', 'amqp', 'nats', 'redis', 'mqtt']);
  });
});
