export { amqpTransport, brokerTransports, mqttTransport, natsTransport, redisTransport, type BrokerTransportsOptions } from './broker-transports.js';
export type { BrokerTransportOptions, ClosableWebhookTransport } from './broker-transport.js';
export { BODY_FIELD } from './redis-client.js';
