import * as v from 'valibot';
import { ALL_SCOPES, type Principal, type Scope } from '../domain/principal.js';
import { objectMessage, validate } from '../domain/validate.js';
import { ValidationError } from '../errors.js';
import type { Authenticator } from '../ports/authenticator.js';
import { tokenDigest } from './token-digest.js';

const SCOPE_MESSAGE = `scopes must be a list of ${ALL_SCOPES.join(', ')}`;

/** One configured token: the token or its SHA-256 digest (hex), its tenant, a subject (default `token:<first 8 digest chars>`) and scopes (default: all). */
export const StaticTokenEntrySchema = v.pipe(
  v.strictObject(
    {
      token: v.exactOptional(v.pipe(v.string('token must be a non-empty string'), v.minLength(1, 'token must be a non-empty string'))),
      sha256: v.exactOptional(v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{64}$/, 'sha256 must be 64 hex digits'), v.toLowerCase())),
      tenant: v.pipe(v.string('tenant must be a non-empty string'), v.minLength(1, 'tenant must be a non-empty string')),
      subject: v.exactOptional(v.pipe(v.string('subject must be a non-empty string'), v.minLength(1, 'subject must be a non-empty string'))),
      scopes: v.exactOptional(v.array(v.picklist(ALL_SCOPES, SCOPE_MESSAGE), SCOPE_MESSAGE)),
    },
    objectMessage('a token entry must be an object {token | sha256, tenant, subject?, scopes?}'),
  ),
  v.check((entry) => (entry.token === undefined) !== (entry.sha256 === undefined), 'give exactly one of token or sha256'),
);

export type StaticTokenEntry = v.InferInput<typeof StaticTokenEntrySchema>;

const REMEMBERED_TOKENS = 1024;

/**
 * An `Authenticator` over fixed tokens, looked up by SHA-256 digest (no secret compared byte by byte). Known tokens (the latest 1,024, never
 * unknown ones, which could crowd them out) are remembered by text to skip the digest. `ValidationError` naming a bad or repeated entry.
 */
export function staticTokens(entries: readonly StaticTokenEntry[]): Authenticator {
  const principals = new Map<string, Principal>();
  entries.forEach((input, index) => {
    const entry = validate(StaticTokenEntrySchema, input, `tokens[${index}]`);
    const digest = entry.sha256 ?? tokenDigest(entry.token!);
    if (principals.has(digest)) throw ValidationError.of(`tokens[${index}]`, `tokens[${index}]: the same token is configured twice`);
    principals.set(digest, {
      subject: entry.subject ?? `token:${digest.slice(0, 8)}`,
      tenant: entry.tenant,
      scopes: Object.freeze([...new Set<Scope>(entry.scopes ?? ALL_SCOPES)]),
    });
  });
  const remembered = new Map<string, Principal>();
  return {
    // Not `async`: a settled promise is all a Map lookup needs.
    authenticate(token) {
      let principal = remembered.get(token);
      if (principal === undefined) {
        principal = principals.get(tokenDigest(token));
        if (principal === undefined) return Promise.resolve(undefined);
        // Full: the one remembered longest ago goes first.
        if (remembered.size >= REMEMBERED_TOKENS) remembered.delete(remembered.keys().next().value!);
        remembered.set(token, principal);
      }
      return Promise.resolve(principal);
    },
  };
}
