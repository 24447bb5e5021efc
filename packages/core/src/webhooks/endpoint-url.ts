import * as v from 'valibot';
import { hasNonPublicLiteralHost } from './destination-policy.js';

/** Longest endpoint URL, in characters (code points). The schema and the OpenAPI document read it. */
export const ENDPOINT_URL_MAX_LENGTH = 2048;

export interface EndpointUrlOptions {
  /** Accept IP literals that are not public (loopback, private, …; `PLANT_STORE_WEBHOOK_ALLOW_PRIVATE`). @default false */
  readonly allowPrivate?: boolean;
}

// Whitespace and control characters: the URL parser would drop them, so the URL stored would not be the one typed.
const UNSAFE_CHARACTER = /[\u0000-\u0020\u007f]/;

/** Length in code points, as the limits count it. */
export const codePoints = (text: string): number => [...text].length;

/** What is wrong with an endpoint URL (a message naming `field`), or `undefined`; names are not resolved: the transport checks the address. */
export function endpointUrlProblem(url: string, options: EndpointUrlOptions = {}, field = 'url'): string | undefined {
  if (codePoints(url) > ENDPOINT_URL_MAX_LENGTH) return `${field} must be at most ${ENDPOINT_URL_MAX_LENGTH} characters`;
  const parsed = UNSAFE_CHARACTER.test(url) || !URL.canParse(url) ? undefined : new URL(url);
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return `${field} must be an absolute http or https URL`;
  if (parsed.username !== '' || parsed.password !== '') return `${field} must not contain credentials`;
  if (!options.allowPrivate && hasNonPublicLiteralHost(parsed)) return `${field} must not point to a private, loopback, link-local or multicast address`;
  return undefined;
}

/** The schema of an endpoint's `url` (create and update): a string that passes {@link endpointUrlProblem}, output as given. */
export function endpointUrlSchema(options: EndpointUrlOptions = {}, field = 'url') {
  return v.pipe(
    v.string(`${field} must be an absolute http or https URL`),
    v.rawCheck<string>(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const problem = endpointUrlProblem(dataset.value, options, field);
      if (problem !== undefined) addIssue({ message: problem });
    }),
  );
}
