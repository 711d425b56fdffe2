import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { SignInOffer } from './api.js';

/**
 * The token prompt: first load, and after any 401 (with the reason in `message`). When the server
 * also offers sign-in (`offer`), it is the secondary choice and links back to it.
 */
export function TokenPrompt(props: { message: string | null; offer?: SignInOffer | null; onSubmit: (token: string) => Promise<void> }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [empty, setEmpty] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  // Focus (and select what was refused) as soon as the prompt exists: typing may start right away.
  useLayoutEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, [props.message]);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!token.trim()) return setEmpty(true);
    setBusy(true);
    try {
      await props.onSubmit(token.trim());
    } finally {
      setBusy(false);
    }
  };
  const error = empty ? 'Enter the API token.' : props.message;
  return (
    <main id="main" class="signin">
      <form class="card signin-card" onSubmit={submit} noValidate aria-labelledby="signin-title">
        <p class="brand-line" aria-hidden="true">expertq</p>
        <h1 id="signin-title">Sign in to the review queue</h1>
        <p class="muted">
          This server needs its API token (the value of <code>SERVICE_API_TOKEN</code> where it runs). It is kept in this
          browser tab only and sent with each request.
        </p>
        {error ? <p id="token-error" class="alert" role="alert">{error}</p> : null}
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          spellcheck={false}
          value={token}
          onInput={(e) => {
            setToken(e.currentTarget.value);
            setEmpty(false);
          }}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'token-error' : undefined}
          ref={input}
        />
        <button type="submit" class="primary wide" disabled={busy}>{busy ? 'Checking…' : 'Sign in'}</button>
        {props.offer ? <a class="secondary-choice" href={props.offer.login_url}>Sign in with {props.offer.label} instead</a> : null}
      </form>
    </main>
  );
}
