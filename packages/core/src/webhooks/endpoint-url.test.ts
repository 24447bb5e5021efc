import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { validate } from '../domain/validate.js';
import { ValidationError } from '../errors.js';
import { ENDPOINT_URL_MAX_LENGTH, endpointUrlProblem, endpointUrlSchema } from './endpoint-url.js';

const PRIVATE = 'url must not point to a private, loopback, link-local or multicast address';
const NOT_HTTP = 'url must be an absolute http or https URL';

/** The error the schema raises for `url` inside an endpoint-shaped object, as the endpoint schema will use it. */
function errorFor(url: unknown, allowPrivate = false): ValidationError | undefined {
  const schema = v.strictObject({ url: endpointUrlSchema({ allowPrivate }) });
  try {
    validate(schema, { url });
    return undefined;
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
}

describe('endpointUrlSchema', () => {
  it.each([
    'https://example.com/hooks',
    'http://example.com',
    'https://example.com:8443/a/b?c=d#e',
    'https://bücher.example/ü',
    'http://8.8.8.8/hook',
    'http://[2001:4860:4860::8888]/hook',
    'http://localhost:3000/', // a name: judged when it resolves, at delivery
    'http://127.0.0.1.nip.io/',
  ])('accepts %s and returns it unchanged', (url) => {
    expect(v.parse(endpointUrlSchema(), url)).toBe(url);
    expect(errorFor(url)).toBeUndefined();
  });

  it.each([
    'http://127.0.0.1/',
    'http://127.1/',
    'http://0x7f.1/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://%31%32%37.0.0.1/',
    'http://１２７.０.０.１/',
    'http://0/',
    'http://0.0.0.0:8080/',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://192.168.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://224.0.0.1/',
    'http://[::1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://[ff02::1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2002:c0a8:1::]/',
  ])('refuses the literal non-public address in %s with a 400-style error on url', (url) => {
    const error = errorFor(url);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error!.field).toBe('url');
    expect(error!.message).toBe(PRIVATE);
  });

  it('accepts those addresses when private destinations are allowed', () => {
    for (const url of ['http://127.0.0.1:8080/', 'http://[::1]/', 'http://169.254.169.254/', 'http://0x7f.1/']) {
      expect(errorFor(url, true)).toBeUndefined();
    }
  });

  it.each([
    ['ftp://example.com/', NOT_HTTP],
    ['file:///etc/passwd', NOT_HTTP],
    ['javascript:alert(1)', NOT_HTTP],
    ['gopher://127.0.0.1:6379/_', NOT_HTTP],
    ['/relative/path', NOT_HTTP],
    ['example.com/hook', NOT_HTTP],
    ['', NOT_HTTP],
    ['http://', NOT_HTTP],
    ['http://exa mple.com/', NOT_HTTP],
    [' https://example.com/', NOT_HTTP],
    ['https://example.com/\n', NOT_HTTP],
    ['https://exa\tmple.com/', NOT_HTTP],
    ['http://256.0.0.1/', NOT_HTTP],
    ['http://[fe80::1%25eth0]/', NOT_HTTP],
    ['https://user:pass@example.com/', 'url must not contain credentials'],
    ['https://user@example.com/', 'url must not contain credentials'],
    ['https://:pass@example.com/', 'url must not contain credentials'],
    ['http://user:pass@127.0.0.1/', 'url must not contain credentials'],
  ])('refuses %j: %s', (url, message) => {
    const error = errorFor(url);
    expect(error?.field).toBe('url');
    expect(error?.message).toBe(message);
  });

  it.each([null, 42, {}, ['https://example.com/']])('refuses a non-string %j', (url) => {
    expect(errorFor(url)?.message).toBe(NOT_HTTP);
  });

  it(`allows exactly ${ENDPOINT_URL_MAX_LENGTH} characters, counted as code points`, () => {
    const base = 'https://example.com/';
    const longest = base + 'a'.repeat(ENDPOINT_URL_MAX_LENGTH - base.length);
    expect(errorFor(longest)).toBeUndefined();
    expect(errorFor(longest + 'a')?.message).toBe(`url must be at most ${ENDPOINT_URL_MAX_LENGTH} characters`);
    const emoji = base + '🌿'.repeat(ENDPOINT_URL_MAX_LENGTH - base.length); // 2 UTF-16 units each
    expect(errorFor(emoji)).toBeUndefined();
    expect(errorFor(emoji + '🌿')?.message).toBe(`url must be at most ${ENDPOINT_URL_MAX_LENGTH} characters`);
  });

  it('names the field it is given', () => {
    expect(endpointUrlProblem('http://127.0.0.1/', {}, 'endpoint.url')).toBe(
      'endpoint.url must not point to a private, loopback, link-local or multicast address',
    );
    expect(endpointUrlProblem('https://example.com/')).toBeUndefined();
  });
});

describe('endpointUrlProblem with broker destinations', () => {
  const brokers = { kinds: ['http', 'amqp', 'nats', 'redis', 'mqtt'] as const };

  it('accepts broker URLs, credentials included, only for the kinds allowed', () => {
    expect(endpointUrlProblem('amqp://user:pw@rabbit.example/?exchange=plants', brokers)).toBeUndefined();
    expect(endpointUrlProblem('nats://token@nats.example/plants.created', brokers)).toBeUndefined();
    expect(endpointUrlProblem('rediss://:pw@redis.example:6380/0?stream=plants', brokers)).toBeUndefined();
    expect(endpointUrlProblem('mqtt://mqtt.example/plants', brokers)).toBeUndefined();
    expect(endpointUrlProblem('amqp://rabbit.example/?exchange=plants')).toBe(
      'url must be an absolute http or https URL: amqp destinations are not allowed for endpoints here',
    );
    expect(endpointUrlProblem('mqtt://mqtt.example/plants', { kinds: ['http', 'amqp'] })).toBe(
      'url must be an absolute http or https, or amqp or amqps URL: mqtt destinations are not allowed for endpoints here',
    );
  });

  it('keeps refusing credentials in http URLs, broker URLs of a bad shape and private addresses', () => {
    expect(endpointUrlProblem('https://u:p@example.com/', brokers)).toBe('url must not contain credentials');
    expect(endpointUrlProblem('redis://redis.example/0', brokers)).toBe('url must name the stream: redis://host:6379/0?stream=plants');
    expect(endpointUrlProblem('amqp://guest:guest@127.0.0.1:5672/?exchange=x', brokers)).toBe(PRIVATE);
    expect(endpointUrlProblem('amqp://guest:guest@127.0.0.1:5672/?exchange=x', { ...brokers, allowPrivate: true })).toBeUndefined();
  });
});
