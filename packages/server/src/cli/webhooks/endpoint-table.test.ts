import { describe, expect, it } from 'vitest';
import { endpointTable } from './endpoint-table.js';

describe('endpointTable', () => {
  it('shows a broker URL without its credentials', () => {
    const table = endpointTable(
      [
        {
          id: 'ep_1',
          tenant: 'acme',
          status: 'enabled',
          eventTypes: ['plant.created'],
          url: 'amqp://guest:hunter2@rabbit.test:5672/?exchange=plants',
          ordering: 'none',
          createdAt: 0,
          updatedAt: 0,
        },
      ],
      new Map([['ep_1', 'hmac']]),
    );
    expect(table).toContain('amqp://***@rabbit.test:5672/?exchange=plants');
    expect(table).not.toContain('hunter2');
  });
});
