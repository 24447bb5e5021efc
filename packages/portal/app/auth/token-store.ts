// Where the page keeps the token it signs in with: sessionStorage, so it
// lives as long as the tab and is never written to disk for later visits,
// nor sent anywhere but in the Authorization header of API calls.

const KEY = 'plant-store-portal-token';

/** A token and how it reached the page (a portal link or the sign-in form). */
export interface StoredToken {
  readonly token: string;
  readonly fromLink: boolean;
}

/**
 * Takes a portal link's token out of the address (`#token=…`): stores it,
 * then removes the fragment from the address bar and the history entry at
 * once, so it is not left on screen, in the history or in a bookmark.
 * Returns undefined when the address carries no token.
 */
export function takeTokenFromAddress(): StoredToken | undefined {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const token = fragment.get('token');
  if (token === null) return undefined;
  history.replaceState(history.state, '', location.pathname + location.search);
  const stored = { token: token.trim(), fromLink: true };
  if (stored.token === '') return undefined;
  storeToken(stored);
  return stored;
}

export function storedToken(): StoredToken | undefined {
  const raw = sessionStorage.getItem(KEY);
  if (raw === null) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<StoredToken>;
    return typeof value.token === 'string' ? { token: value.token, fromLink: value.fromLink === true } : undefined;
  } catch {
    return undefined;
  }
}

export function storeToken(token: StoredToken): void {
  sessionStorage.setItem(KEY, JSON.stringify(token));
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
