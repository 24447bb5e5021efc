// The token the page signs in with lives in sessionStorage: as long as the tab, never on disk for later visits.

const KEY = 'plant-store-portal-token';

/** A token and how it reached the page (a portal link or the sign-in form). */
export interface StoredToken {
  readonly token: string;
  readonly fromLink: boolean;
}

/** Takes a portal link's token (`#token=…`) out of the address, so it is not left on screen, in the history or a bookmark, and stores it. */
export function takeTokenFromAddress(): StoredToken | undefined {
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (token === null) return undefined;
  history.replaceState(history.state, '', location.pathname + location.search);
  const stored = { token: token.trim(), fromLink: true };
  if (stored.token === '') return undefined;
  storeToken(stored);
  return stored;
}

export function storedToken(): StoredToken | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<StoredToken> | null;
    return typeof value?.token === 'string' ? { token: value.token, fromLink: value.fromLink === true } : undefined;
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
