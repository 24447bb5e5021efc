import * as v from 'valibot';
import { hasNonPublicLiteralHost } from './destination-policy.js';
import { destinationKind, parseBrokerDestination, type DestinationKind } from './destination-url.js';

/** Longest endpoint URL, in characters (code points). The schema and the OpenAPI document read it. */
export const ENDPOINT_URL_MAX_LENGTH = 2048;

export interface EndpointUrlOptions {
  /** Accept IP literals that are not public (loopback, private, …; `PLANT_STORE_WEBHOOK_ALLOW_PRIVATE`). @default false */
  readonly allowPrivate?: boolean;
  /** Destination kinds a URL may name (`PLANT_STORE_WEBHOOK_DESTINATION_KINDS`); broker URLs may carry credentials. @default ['http'] */
  readonly kinds?: readonly DestinationKind[];
}

// Whitespace and control characters: the URL parser would drop them, so the URL stored would not be the one typed.
const UNSAFE_CHARACTER = /[\u0000-\u0020\u007f]/;

/** Length in code points, as the limits count it. */
export const codePoints = (text: string): number => [...text].length;

/** What is wrong with an endpoint URL (a message naming `field`), or `undefined`; names are not resolved: the transport checks the address. */
export function endpointUrlProblem(url: string, options: EndpointUrlOptions = {}, field = 'url'): string | undefined {
  if (codePoints(url) > ENDPOINT_URL_MAX_LENGTH) return `${field} must be at most ${ENDPOINT_URL_MAX_LENGTH} characters`;
  const parsed = UNSAFE_CHARACTER.test(url) || !URL.canParse(url) ? undefined : new URL(url);
  const kinds = options.kinds ?? ['http'];
  const kind = parsed && destinationKind(parsed);
  if (!parsed || kind === undefined) return `${field} must be an absolute ${allowedSchemes(kinds)} URL`;
  if (!kinds.includes(kind)) return `${field} must be an absolute ${allowedSchemes(kinds)} URL: ${kind} destinations are not allowed for endpoints here`;
  if (kind === 'http' && (parsed.username !== '' || parsed.password !== '')) return `${field} must not contain credentials`;
  if (kind !== 'http') {
    const broker = parseBrokerDestination(parsed, field);
    if (typeof broker === 'string') return broker;
  }
  if (!options.allowPrivate && hasNonPublicLiteralHost(parsed)) return `${field} must not point to a private, loopback, link-local or multicast address`;
  return undefined;
}

const SCHEMES: Readonly<Record<DestinationKind, string>> = {
  http: 'http or https',
  amqp: 'amqp or amqps',
  nats: 'nats',
  redis: 'redis or rediss',
  mqtt: 'mqtt or mqtts',
};

/** `http or https`, `http or https, or amqp or amqps`, …: the schemes the allowed kinds name, for messages. */
function allowedSchemes(kinds: readonly DestinationKind[]): string {
  const names = kinds.map((kind) => SCHEMES[kind]);
  return names.length <= 1 ? (names[0] ?? 'http or https') : `${names.slice(0, -1).join(', ')}, or ${names.at(-1)}`;
}

/** The schema of an endpoint's `url` (create and update): a string that passes {@link endpointUrlProblem}, output as given. */
export function endpointUrlSchema(options: EndpointUrlOptions = {}, field = 'url') {
  return v.pipe(
    v.string(`${field} must be an absolute ${allowedSchemes(options.kinds ?? ['http'])} URL`),
    v.rawCheck<string>(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const problem = endpointUrlProblem(dataset.value, options, field);
      if (problem !== undefined) addIssue({ message: problem });
    }),
  );
}
