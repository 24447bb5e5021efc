import * as v from 'valibot';
import type { Scope } from '../domain/principal.js';
import { objectMessage, validate } from '../domain/validate.js';
import type { Clock } from '../ports/clock.js';
import type { PortalLink, PortalLinkRepository } from '../ports/portal-link-repository.js';
import { isPortalLinkId, newPortalLinkParts, portalLinkToken, portalSecretDigest } from './portal-link-token.js';

/** How long a portal link works when no expiry is given: one hour. */
export const DEFAULT_PORTAL_LINK_TTL_MS = 60 * 60 * 1000;
/** The longest a portal link may work: seven days (links travel in URLs and chats; they must not live long). */
export const MAX_PORTAL_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const READ_ONLY: readonly Scope[] = Object.freeze(['webhooks:read']);
const READ_WRITE: readonly Scope[] = Object.freeze(['webhooks:read', 'webhooks:write']);

const TTL_MESSAGE = `expiresInMs must be an integer number of milliseconds between 1 and ${MAX_PORTAL_LINK_TTL_MS} (7 days)`;
const TENANT_MESSAGE = 'tenant must be a non-empty string';

const MintPortalLinkSchema = v.strictObject(
  {
    tenant: v.pipe(v.string(TENANT_MESSAGE), v.minLength(1, TENANT_MESSAGE)),
    readOnly: v.exactOptional(v.boolean('readOnly must be true or false')),
    expiresInMs: v.exactOptional(
      v.pipe(v.number(TTL_MESSAGE), v.integer(TTL_MESSAGE), v.minValue(1, TTL_MESSAGE), v.maxValue(MAX_PORTAL_LINK_TTL_MS, TTL_MESSAGE)),
    ),
  },
  objectMessage('portal link options must be an object {tenant, readOnly?, expiresInMs?}'),
);
export type MintPortalLinkOptions = v.InferInput<typeof MintPortalLinkSchema>;

/** A new link and the only copy of its token. */
export interface MintedPortalLink {
  readonly id: string;
  /** `psl_<id>_<secret>`: give it to the tenant (e.g. in a `/portal#token=…` URL); it cannot be read again. */
  readonly token: string;
  readonly tenant: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: number;
}

/**
 * `store.allTenants.portalLinks`: a link signs one tenant in to its webhooks (read-only or read-write), never to its plants, until it
 * expires or is revoked. Operator tools across tenants: no principal is checked.
 */
export class PortalLinks {
  readonly #links: PortalLinkRepository;
  readonly #clock: Clock;

  constructor(links: PortalLinkRepository, clock: Clock) {
    this.#links = links;
    this.#clock = clock;
  }

  /** Mints a link (default read-write, 1 hour; at most 7 days); `ValidationError` naming the option on bad input. */
  async mint(options: MintPortalLinkOptions): Promise<MintedPortalLink> {
    const { tenant, readOnly = false, expiresInMs = DEFAULT_PORTAL_LINK_TTL_MS } = validate(MintPortalLinkSchema, options);
    const { id, secret } = newPortalLinkParts();
    const createdAt = this.#clock.now();
    const scopes = readOnly ? READ_ONLY : READ_WRITE;
    const expiresAt = createdAt + expiresInMs;
    await this.#links.create({ id, tenant, scopes, createdAt, expiresAt, secretSha256: portalSecretDigest(secret) });
    return { id, token: portalLinkToken(id, secret), tenant, scopes, expiresAt };
  }

  /** Revokes the link: its token is refused from now on. `true` when it was live or expired, `false` when unknown or already revoked. */
  async revoke(id: string): Promise<boolean> {
    if (typeof id !== 'string' || !isPortalLinkId(id)) return false;
    return this.#links.revoke(id, this.#clock.now());
  }

  /** The links of `tenant` (all tenants when absent), newest first, revoked and expired ones included. */
  list(tenant?: string): Promise<PortalLink[]> {
    return this.#links.list(tenant);
  }
}
