// Where a webhook can go, by URL scheme: HTTP, or a message broker (the broker transports publish there). One parser, so
// the endpoint and subscription schemas accept exactly what the transports can send to.

/** The kinds of destination, named by their URL schemes (`amqp` covers `amqp:` and `amqps:`, and so on). */
export const DESTINATION_KINDS = Object.freeze(['http', 'amqp', 'nats', 'redis', 'mqtt'] as const);

export type DestinationKind = (typeof DESTINATION_KINDS)[number];

const KIND_OF_PROTOCOL: Readonly<Record<string, DestinationKind>> = {
  'http:': 'http',
  'https:': 'http',
  'amqp:': 'amqp',
  'amqps:': 'amqp',
  'nats:': 'nats',
  'redis:': 'redis',
  'rediss:': 'redis',
  'mqtt:': 'mqtt',
  'mqtts:': 'mqtt',
};

const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  'http:': 80,
  'https:': 443,
  'amqp:': 5672,
  'amqps:': 5671,
  'nats:': 4222,
  'redis:': 6379,
  'rediss:': 6379,
  'mqtt:': 1883,
  'mqtts:': 8883,
};

/** The port a destination URL without one connects to (its scheme's well-known port); `undefined` for an unknown scheme. */
export function destinationPort(url: URL): number | undefined {
  return url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
}

/** Most entries a stream is trimmed to (`maxLen`) by default. */
export const DEFAULT_STREAM_MAX_LEN = 100_000;

/** A broker destination, split into the connection (pooled, shared by every destination on it) and where on it to publish. */
export type BrokerDestination =
  | { readonly kind: 'amqp'; readonly connection: string; readonly exchange: string; readonly routingKey: string }
  | { readonly kind: 'nats'; readonly connection: string; readonly subject: string }
  | { readonly kind: 'redis'; readonly connection: string; readonly stream: string; readonly maxLen: number }
  | { readonly kind: 'mqtt'; readonly connection: string; readonly topic: string };

/** The kind of a URL's scheme, or `undefined` for a scheme no transport sends to. */
export function destinationKind(url: URL): DestinationKind | undefined {
  return KIND_OF_PROTOCOL[url.protocol];
}

// NATS subject tokens: printable, no wildcard (`*`, `>`), no empty token; MQTT topics: no wildcard (`+`, `#`) in a publish.
const NATS_SUBJECT = /^[^\s.*>]+(\.[^\s.*>]+)*$/u;
const MQTT_TOPIC_WILDCARD = /[+#\u0000]/u;

/**
 * Splits a broker URL (see docs/destinations.md), or says what is wrong with it (a message naming `field`):
 * - `amqp(s)://user:pass@host:5672/vhost?exchange=plants&routingKey=plant.created` (both optional: the default exchange, key "")
 * - `nats://user:pass@host:4222/plants.created` (the JetStream subject is the path; a token goes as the user)
 * - `redis(s)://user:pass@host:6379/0?stream=plants&maxLen=100000` (`stream` required; the path is the database)
 * - `mqtt(s)://user:pass@host:1883/plants/created` (the topic is the path)
 */
export function parseBrokerDestination(url: URL, field = 'url'): BrokerDestination | string {
  const kind = destinationKind(url);
  if (kind === undefined || kind === 'http') return `${field} must be an amqp, nats, redis or mqtt URL`;
  if (url.hostname === '') return `${field} must name the broker's host`;
  // An empty fragment (a trailing `#`, e.g. an MQTT wildcard) leaves `hash` empty: look at the text.
  if (url.href.includes('#')) return `${field} must not have a fragment`;
  const userinfo = url.username !== '' || url.password !== '' ? `${url.username}${url.password !== '' ? `:${url.password}` : ''}@` : '';
  const server = `${url.protocol}//${userinfo}${url.host}`;
  return PARSERS[kind](url, server, field);
}

type Parser = (url: URL, server: string, field: string) => BrokerDestination | string;

const unknownParameter = (url: URL, known: readonly string[]) => [...url.searchParams.keys()].find((name) => !known.includes(name));

const AMQP_CONNECTION_PARAMETERS = ['heartbeat', 'frameMax', 'channelMax', 'locale'];

const PARSERS: Readonly<Record<BrokerDestination['kind'], Parser>> = {
  amqp(url, _server, field) {
    const extra = unknownParameter(url, ['exchange', 'routingKey', ...AMQP_CONNECTION_PARAMETERS]);
    if (extra !== undefined) return `${field} has an unknown parameter ${extra} (amqp takes exchange, routingKey, ${AMQP_CONNECTION_PARAMETERS.join(', ')})`;
    // The vhost (the path) and the tuning parameters belong to the connection; exchange and routing key to each publish.
    const connection = new URL(url.href);
    connection.searchParams.delete('exchange');
    connection.searchParams.delete('routingKey');
    const { searchParams } = url;
    return { kind: 'amqp', connection: connection.href, exchange: searchParams.get('exchange') ?? '', routingKey: searchParams.get('routingKey') ?? '' };
  },
  nats(url, server, field) {
    if (url.search !== '') return `${field} must not have a query (the subject is the path: nats://host:4222/plants.created)`;
    const subject = decodedPath(url);
    if (!NATS_SUBJECT.test(subject)) return `${field} must name a JetStream subject without wildcards as its path (nats://host:4222/plants.created)`;
    return { kind: 'nats', connection: server, subject };
  },
  redis(url, server, field) {
    const extra = unknownParameter(url, ['stream', 'maxLen']);
    if (extra !== undefined) return `${field} has an unknown parameter ${extra} (redis takes stream and maxLen)`;
    const stream = url.searchParams.get('stream') ?? '';
    if (stream === '') return `${field} must name the stream: redis://host:6379/0?stream=plants`;
    const maxLenText = url.searchParams.get('maxLen');
    const maxLen = maxLenText === null ? DEFAULT_STREAM_MAX_LEN : Number(maxLenText);
    if (!/^\d{1,9}$/.test(maxLenText ?? '1') || maxLen < 1) return `${field} maxLen must be a whole number from 1 to 999999999`;
    // The path is the database number, part of the connection.
    if (!/^(\/\d{0,2})?$/.test(url.pathname)) return `${field} path must be a database number (redis://host:6379/0?stream=plants)`;
    return { kind: 'redis', connection: `${server}${url.pathname}`, stream, maxLen };
  },
  mqtt(url, server, field) {
    if (url.search !== '') return `${field} must not have a query (the topic is the path: mqtt://host:1883/plants/created)`;
    const topic = decodedPath(url);
    if (topic === '' || MQTT_TOPIC_WILDCARD.test(topic))
      return `${field} must name an MQTT topic without wildcards as its path (mqtt://host:1883/plants/created)`;
    return { kind: 'mqtt', connection: server, topic };
  },
};

/** The path without its leading `/`, percent-decoded; `""` when it does not decode (and so is refused). */
function decodedPath(url: URL): string {
  try {
    return decodeURIComponent(url.pathname.slice(1));
  } catch {
    return '';
  }
}

/** What {@link maskUrlCredentials} puts in place of a URL's userinfo. */
const MASK = '***';

/** Whether the URL's userinfo is the mask {@link maskUrlCredentials} shows: a URL copied from an answer, not credentials. */
export function hasMaskedCredentials(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  return parsed.username === MASK && parsed.password === '';
}

/** The URL with its userinfo (broker credentials) replaced by `***`, for answers and logs; unchanged without any, or when it does not parse. */
export function maskUrlCredentials(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') return url;
  // Text surgery, not URL setters: a special scheme's setters would keep `:` or re-encode other parts.
  const start = url.indexOf('//') + 2;
  const end = url.slice(start).search(/[/?#]/);
  const authority = end === -1 ? url.slice(start) : url.slice(start, start + end);
  const at = authority.lastIndexOf('@');
  return start < 2 || at === -1 ? url : `${url.slice(0, start)}${MASK}${url.slice(start + at)}`;
}
