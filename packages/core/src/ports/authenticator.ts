import type { Principal } from '../domain/principal.js';

/** Turns bearer credentials into a principal. */
export interface Authenticator {
  /** The principal the token belongs to, or `undefined` for an unknown token. Rejects only when the backing service fails, with an error whose numeric `retryAfterMs`, if any, says when to try again. Must never log the token. */
  authenticate(token: string): Promise<Principal | undefined>;
}
