import { useEffect, useState } from 'preact/hooks';
import type { WebhookEventTypeInfo, WebhookSession, WebhooksClient } from '@plant-store/client';
import { describeError, isSignedOut, portalApi } from './api/portal-api.js';
import { forgetToken, storedToken, storeToken, takeTokenFromAddress, type StoredToken } from './auth/token-store.js';
import type { Tone } from './ui/parts.js';
import { PortalPage } from './views/portal-page.js';
import { SignIn } from './views/sign-in.js';

/** Shown when a portal link is refused: the reader cannot fix it, only ask for another. */
const LINK_REFUSED = 'This link is invalid, expired or was revoked; ask for a new one.';
const TOKEN_REFUSED = 'The service did not accept this token: it is unknown, expired or was revoked.';
const ENDED = 'Your sign-in has ended: the token expired or was revoked.';

type State =
  | { readonly kind: 'checking' }
  | { readonly kind: 'signed-out'; readonly problem?: string }
  | {
      readonly kind: 'signed-in';
      readonly token: StoredToken;
      readonly api: WebhooksClient;
      readonly session: WebhookSession;
      readonly eventTypes: WebhookEventTypeInfo[];
    };

export function App() {
  const [state, setState] = useState<State>({ kind: 'checking' });
  // The serial tells two equal messages in a row apart, so the second is read out too.
  const [announcement, setAnnouncement] = useState<{ readonly text: string; readonly tone: Tone; readonly serial: number }>();
  const announce = (text: string, tone: Tone = 'info') => setAnnouncement((last) => ({ text, tone, serial: (last?.serial ?? 0) + 1 }));

  async function signIn(token: StoredToken) {
    setState({ kind: 'checking' });
    const api = portalApi(token.token);
    try {
      const [session, eventTypes] = await Promise.all([api.session(), api.eventTypes()]);
      storeToken(token);
      setState({ kind: 'signed-in', token, api, session, eventTypes });
    } catch (error) {
      if (isSignedOut(error)) {
        forgetToken();
        setState({ kind: 'signed-out', problem: token.fromLink ? LINK_REFUSED : TOKEN_REFUSED });
      } else {
        setState({ kind: 'signed-out', problem: `Could not sign in. ${describeError(error)}` });
      }
    }
  }

  function signOut(problem?: string) {
    forgetToken();
    setState(problem === undefined ? { kind: 'signed-out' } : { kind: 'signed-out', problem });
  }

  useEffect(() => {
    const start = () => {
      const token = takeTokenFromAddress();
      if (token !== undefined) void signIn(token);
      return token;
    };
    const token = start() ?? storedToken();
    if (token === undefined) setState({ kind: 'signed-out' });
    else void signIn(token);
    // A link opened in a tab that already shows the page only changes the fragment.
    const onHashChange = () => void start();
    addEventListener('hashchange', onHashChange);
    return () => removeEventListener('hashchange', onHashChange);
  }, []);

  return (
    <>
      {/* The page's one polite status region, present from the start (one added later is not read out). */}
      <div class={`status status-${announcement?.tone ?? 'info'}`} role="status" aria-live="polite" aria-atomic="true" data-testid="status">
        {announcement === undefined ? null : <p key={announcement.serial}>{announcement.text}</p>}
      </div>
      {state.kind === 'checking' ? (
        <main class="checking">
          <h1>Webhooks</h1>
          <p>Signing in…</p>
        </main>
      ) : state.kind === 'signed-out' ? (
        <SignIn problem={state.problem} onSubmit={(token) => void signIn({ token, fromLink: false })} />
      ) : (
        <PortalPage
          api={state.api}
          session={state.session}
          eventTypes={state.eventTypes}
          announce={announce}
          onSignOut={() => signOut()}
          fail={(error) => (isSignedOut(error) ? signOut(state.token.fromLink ? LINK_REFUSED : ENDED) : announce(describeError(error), 'error'))}
        />
      )}
    </>
  );
}
