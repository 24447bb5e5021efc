import type { BrokerDestination } from '@plant-store/core/adapter';

/**
 * Where a message in a plant's line goes (`orderingKey`, the plant id, on an endpoint with `ordering: 'plant'`): the id is
 * the last token of the routing key (`.`), the subject (`.`) or the topic (`/`), so that a consumer can share the work
 * by plant (a consistent-hash exchange, a subject partition, a topic per plant) and still keep each plant's order. The
 * default exchange routes by queue name and a Redis stream keeps one order for all its entries: those stay as they are.
 */
export function orderedDestination<D extends BrokerDestination>(destination: D, orderingKey: string | undefined): D {
  if (orderingKey === undefined || orderingKey === '') return destination;
  switch (destination.kind) {
    case 'amqp':
      if (destination.exchange === '') return destination;
      return { ...destination, routingKey: destination.routingKey === '' ? orderingKey : `${destination.routingKey}.${orderingKey}` };
    case 'nats':
      return { ...destination, subject: `${destination.subject}.${orderingKey}` };
    case 'mqtt':
      return { ...destination, topic: `${destination.topic}/${orderingKey}` };
    case 'redis':
      return destination;
  }
}
