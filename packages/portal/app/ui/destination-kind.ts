import type { WebhookDestinationKind } from '@plant-store/client';

/** How the page names each destination kind. */
export const DESTINATION_LABELS: Readonly<Record<WebhookDestinationKind, string>> = {
  http: 'HTTP',
  amqp: 'RabbitMQ',
  nats: 'NATS JetStream',
  redis: 'Redis Streams',
  mqtt: 'MQTT',
};

const KIND_OF_SCHEME: Readonly<Record<string, WebhookDestinationKind>> = {
  http: 'http',
  https: 'http',
  amqp: 'amqp',
  amqps: 'amqp',
  nats: 'nats',
  redis: 'redis',
  rediss: 'redis',
  mqtt: 'mqtt',
  mqtts: 'mqtt',
};

/** The kind a URL being typed names by its scheme, before the service says so; `undefined` until it names one. */
export function kindOfTypedUrl(text: string): WebhookDestinationKind | undefined {
  const scheme = /^\s*([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  return scheme === undefined ? undefined : KIND_OF_SCHEME[scheme];
}

/** The userinfo the service shows in place of a broker URL's credentials. */
export const hasMaskedCredentials = (text: string): boolean => /^\s*[a-z][a-z0-9+.-]*:\/\/\*\*\*@/i.test(text);
