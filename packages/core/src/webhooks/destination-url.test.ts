import { describe, expect, it } from 'vitest';
import { DEFAULT_STREAM_MAX_LEN, destinationPort, maskUrlCredentials, parseBrokerDestination } from './destination-url.js';

const parse = (url: string) => parseBrokerDestination(new URL(url));

describe('parseBrokerDestination', () => {
  it('splits each kind into its pooled connection and where to publish', () => {
    expect(parse('amqp://user:pass@rabbit.test:5672/prod?exchange=plants&routingKey=plant.created&heartbeat=30')).toEqual({
      kind: 'amqp',
      connection: 'amqp://user:pass@rabbit.test:5672/prod?heartbeat=30',
      exchange: 'plants',
      routingKey: 'plant.created',
    });
    expect(parse('amqps://rabbit.test/?routingKey=queue-name')).toEqual({
      kind: 'amqp',
      connection: 'amqps://rabbit.test/',
      exchange: '',
      routingKey: 'queue-name',
    });
    expect(parse('nats://token@nats.test:4222/plants.created')).toEqual({ kind: 'nats', connection: 'nats://token@nats.test:4222', subject: 'plants.created' });
    expect(parse('rediss://default:pw@redis.test:6380/2?stream=plants&maxLen=500')).toEqual({
      kind: 'redis',
      connection: 'rediss://default:pw@redis.test:6380/2',
      stream: 'plants',
      maxLen: 500,
    });
    expect(parse('redis://redis.test?stream=plants')).toMatchObject({ connection: 'redis://redis.test', maxLen: DEFAULT_STREAM_MAX_LEN });
    expect(parse('mqtts://u:p@mqtt.test:8883/plants/created')).toEqual({ kind: 'mqtt', connection: 'mqtts://u:p@mqtt.test:8883', topic: 'plants/created' });
  });

  it.each([
    ['http://example.test/', 'url must be an amqp, nats, redis or mqtt URL'],
    ['amqp://rabbit.test/?exchange=x&queue=q', 'url has an unknown parameter queue (amqp takes exchange, routingKey, heartbeat, frameMax, channelMax, locale)'],
    ['amqp://rabbit.test/#frag', 'url must not have a fragment'],
    ['nats://nats.test:4222/', 'url must name a JetStream subject without wildcards as its path (nats://host:4222/plants.created)'],
    ['nats://nats.test:4222/plants.*', 'url must name a JetStream subject without wildcards as its path (nats://host:4222/plants.created)'],
    ['nats://nats.test:4222/plants..created', 'url must name a JetStream subject without wildcards as its path (nats://host:4222/plants.created)'],
    ['nats://nats.test:4222/a?x=1', 'url must not have a query (the subject is the path: nats://host:4222/plants.created)'],
    ['redis://redis.test:6379/0', 'url must name the stream: redis://host:6379/0?stream=plants'],
    ['redis://redis.test:6379/0?stream=s&maxLen=0', 'url maxLen must be a whole number from 1 to 999999999'],
    ['redis://redis.test:6379/0?stream=s&maxLen=1e3', 'url maxLen must be a whole number from 1 to 999999999'],
    ['redis://redis.test:6379/x/y?stream=s', 'url path must be a database number (redis://host:6379/0?stream=plants)'],
    ['mqtt://mqtt.test/', 'url must name an MQTT topic without wildcards as its path (mqtt://host:1883/plants/created)'],
    ['mqtt://mqtt.test/plants/#', 'url must not have a fragment'],
    ['mqtt://mqtt.test/plants/%E0%A4%A', 'url must name an MQTT topic without wildcards as its path (mqtt://host:1883/plants/created)'],
  ])('refuses %s', (url, message) => {
    expect(parse(url)).toBe(message);
  });
});

describe('maskUrlCredentials', () => {
  it.each([
    ['amqp://guest:guest@127.0.0.1:5672/?exchange=x', 'amqp://***@127.0.0.1:5672/?exchange=x'],
    ['nats://s3cret-token@nats.test/plants', 'nats://***@nats.test/plants'],
    ['redis://:pw@redis.test?stream=a@b', 'redis://***@redis.test?stream=a@b'],
    ['mqtt://u:p%40ss@mqtt.test/t', 'mqtt://***@mqtt.test/t'],
    ['https://example.test/hook?a=b@c', 'https://example.test/hook?a=b@c'],
    ['not a url', 'not a url'],
  ])('%s → %s', (url, masked) => {
    expect(maskUrlCredentials(url)).toBe(masked);
  });
});

describe('destinationPort', () => {
  it.each([
    ['https://example.test/hook', 443],
    ['http://example.test/hook', 80],
    ['amqp://rabbit.test/?exchange=x', 5672],
    ['amqps://rabbit.test/?exchange=x', 5671],
    ['nats://nats.test/s', 4222],
    ['rediss://redis.test?stream=s', 6379],
    ['mqtts://mqtt.test/t', 8883],
    ['mqtt://mqtt.test:2883/t', 2883],
    ['kafka://k.test/t', undefined],
  ])('%s → %s', (url, port) => {
    expect(destinationPort(new URL(url))).toBe(port);
  });
});
