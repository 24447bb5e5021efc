import type { DestinationKind } from '@plant-store/core';
import { destinationKind, type WebhookTransport } from '@plant-store/core/adapter';
import { amqpClient } from './amqp-client.js';
import { brokerTransport, type BrokerTransportOptions, type ClosableWebhookTransport } from './broker-transport.js';
import { mqttClient } from './mqtt-client.js';
import { natsClient } from './nats-client.js';
import { redisClient } from './redis-client.js';

export interface BrokerTransportsOptions extends BrokerTransportOptions {
  /** Where `http:`/`https:` URLs go (e.g. `webhookHttpTransport()` from `@plant-store/http-node/webhook-transport`). @default none: they fail */
  readonly http?: WebhookTransport;
}

/** RabbitMQ over AMQP 0-9-1: `amqp(s)://user:pass@host:5672/vhost?exchange=x&routingKey=k`. */
export const amqpTransport = (options?: BrokerTransportOptions): ClosableWebhookTransport => brokerTransport(amqpClient, options);
/** NATS JetStream: `nats://user:pass@host:4222/subject`. */
export const natsTransport = (options?: BrokerTransportOptions): ClosableWebhookTransport => brokerTransport(natsClient, options);
/** Redis Streams: `redis(s)://user:pass@host:6379/0?stream=s&maxLen=n`. */
export const redisTransport = (options?: BrokerTransportOptions): ClosableWebhookTransport => brokerTransport(redisClient, options);
/** MQTT 5: `mqtt(s)://user:pass@host:1883/topic/path`. */
export const mqttTransport = (options?: BrokerTransportOptions): ClosableWebhookTransport => brokerTransport(mqttClient, options);

/**
 * One transport for every destination kind, chosen by the URL's scheme: HTTP to `options.http`, brokers to their own
 * transport (made, and its driver imported, on the first URL of that kind). Never rejects.
 */
export function brokerTransports(options: BrokerTransportsOptions = {}): ClosableWebhookTransport {
  const { http, ...brokerOptions } = options;
  const makers: Readonly<Record<Exclude<DestinationKind, 'http'>, () => ClosableWebhookTransport>> = {
    amqp: () => amqpTransport(brokerOptions),
    nats: () => natsTransport(brokerOptions),
    redis: () => redisTransport(brokerOptions),
    mqtt: () => mqttTransport(brokerOptions),
  };
  const made = new Map<DestinationKind, ClosableWebhookTransport>();
  let closed = false;
  return {
    async send(request) {
      const url = URL.canParse(request.url) ? new URL(request.url) : undefined;
      const kind = url && destinationKind(url);
      if (url === undefined || kind === undefined) return { kind: 'failed', reason: url ? `unsupported protocol ${url.protocol}` : 'invalid url' };
      if (kind === 'http') return http ? http.send(request) : { kind: 'failed', reason: 'no HTTP transport' };
      if (closed) return { kind: 'retry', reason: 'the transport is closed' };
      let transport = made.get(kind);
      if (transport === undefined) {
        transport = makers[kind]();
        made.set(kind, transport);
      }
      return transport.send(request);
    },
    async close() {
      closed = true;
      await Promise.all([...made.values()].map((transport) => transport.close()));
    },
  };
}
