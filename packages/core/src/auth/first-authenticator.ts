import type { Principal } from '../domain/principal.js';
import type { Authenticator } from '../ports/authenticator.js';

/**
 * One `Authenticator` over several, asked in order (cheapest first): the first principal wins. When none knows the
 * token but one rejected, rejects with the first such error: "unknown" cannot be concluded from a source that failed.
 */
export function firstAuthenticator(...authenticators: readonly Authenticator[]): Authenticator {
  return {
    async authenticate(token) {
      let failure: { error: unknown } | undefined;
      for (const authenticator of authenticators) {
        // In a promise's executor: one that throws instead of rejecting counts as failed too.
        const principal = await new Promise<Principal | undefined>((resolve) => resolve(authenticator.authenticate(token))).catch((error: unknown) => {
          failure ??= { error };
          return undefined;
        });
        if (principal) return principal;
      }
      if (failure) throw failure.error;
      return undefined;
    },
  };
}
