import { useLayoutEffect, useRef, useState } from 'preact/hooks';

/** The sign-in form: a tenant token typed in (portal links sign in by themselves); `problem` says why the reader is here again, read out at once. */
export function SignIn({ problem, onSubmit }: { readonly problem: string | undefined; readonly onSubmit: (token: string) => void }) {
  const [token, setToken] = useState('');
  const field = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => field.current?.focus(), []);
  return (
    <main class="sign-in">
      <h1>Webhooks</h1>
      <p class="lead">Manage your Plant Store webhook endpoints and see what was delivered to them.</p>
      {problem === undefined ? null : (
        <p class="problem" role="alert" data-testid="sign-in-problem">
          {problem}
        </p>
      )}
      <form
        class="card"
        onSubmit={(event) => {
          event.preventDefault();
          if (token.trim() !== '') onSubmit(token.trim());
        }}
      >
        <h2>Sign in</h2>
        <label for="token">Access token</label>
        <input
          id="token"
          ref={field}
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          aria-describedby="token-help"
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        <p id="token-help" class="help">
          A tenant token of the service, or open the portal link you were given. The token is kept in this tab only, until you sign out or close it.
        </p>
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}
