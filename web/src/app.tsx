import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { probe, signInState, signOutSession, tokenStore, type Me, type SignInOffer } from './api.js';
import { ConsumerToken, NotAReviewer } from './cannot-review.js';
import { TokenPrompt } from './prompt.js';
import { Shell } from './shell.js';
import { SignInChoice } from './sign-in.js';

type Phase =
  | { kind: 'checking' }
  | { kind: 'choose'; offer: SignInOffer; message: string | null }
  | { kind: 'prompt'; message: string | null }
  | { kind: 'ready'; token: string | null; me: Me }
  | { kind: 'offline'; message: string };

const REFUSED = 'The server refused the token (401 Unauthorized). Enter the current API token to continue.';
const ENDED = 'Your sign-in has ended (it expired, you signed out in another tab, or an administrator ended it). Sign in again to continue.';

/**
 * Signs in, then shows the queue. It first asks the server whether it offers sign-in through the
 * organisation's identity provider and whether this browser is signed in: a session is used as it is
 * (the cookie goes with every call); an offer with no session and no stored token shows "Sign in
 * with …" first. Otherwise, with no token stored it asks the server without one: a 200 means
 * authentication is off and no prompt is shown. Any 401 later returns here with a message.
 */
export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'checking' });
  const offer = useRef<SignInOffer | null>(null);

  const check = useCallback(async (token: string | null, onRefused: string | null) => {
    try {
      const me = await probe(token);
      if (me !== 'unauthorized') {
        if (token) tokenStore.set(token);
        setPhase({ kind: 'ready', token, me });
      } else {
        tokenStore.clear();
        setPhase(!token && offer.current ? { kind: 'choose', offer: offer.current, message: null } : { kind: 'prompt', message: token ? onRefused : null });
      }
    } catch (error) {
      setPhase({ kind: 'offline', message: error instanceof Error ? error.message : String(error) });
    }
  }, []);

  const start = useCallback(async () => {
    try {
      const state = await signInState();
      offer.current = state.sign_in;
      // A session wins over a token left in this tab: the person signed in is who decides.
      if (state.session) tokenStore.clear();
      await check(state.session ? null : tokenStore.get(), REFUSED);
    } catch (error) {
      setPhase({ kind: 'offline', message: error instanceof Error ? error.message : String(error) });
    }
  }, [check]);

  useEffect(() => {
    void start();
  }, [start]);

  const unauthorized = useCallback(() => {
    const hadToken = tokenStore.get() !== null;
    tokenStore.clear();
    setPhase(!hadToken && offer.current ? { kind: 'choose', offer: offer.current, message: ENDED } : { kind: 'prompt', message: REFUSED });
  }, []);

  switch (phase.kind) {
    case 'checking':
      return <main id="main" class="center" aria-busy="true"><p class="muted">Connecting…</p></main>;
    case 'offline':
      return (
        <main id="main" class="center">
          <div class="card signin-card">
            <h1>Cannot reach expertq</h1>
            <p class="alert" role="alert">{phase.message}</p>
            <button type="button" class="primary" onClick={() => void start()}>Try again</button>
          </div>
        </main>
      );
    case 'choose':
      return <SignInChoice offer={phase.offer} message={phase.message} onUseToken={() => setPhase({ kind: 'prompt', message: null })} />;
    case 'prompt':
      return (
        <TokenPrompt
          message={phase.message}
          offer={offer.current}
          onSubmit={(token) => check(token, 'That token was not accepted (401 Unauthorized). Check the value of SERVICE_API_TOKEN and try again.')}
        />
      );
    case 'ready': {
      const signOut = () => {
        if (phase.me.via === 'session') {
          // The cookie is HttpOnly: only the server can clear it. Then start over from a clean page.
          void signOutSession().catch(() => undefined).finally(() => location.reload());
          return;
        }
        tokenStore.clear();
        const message = 'Signed out. The token was removed from this tab.';
        setPhase(offer.current ? { kind: 'choose', offer: offer.current, message } : { kind: 'prompt', message });
      };
      if (phase.me.role === 'consumer') return <ConsumerToken me={phase.me} onSignOut={signOut} />;
      if (phase.me.role === 'none') return <NotAReviewer me={phase.me} onSignOut={signOut} />;
      return <Shell token={phase.token} me={phase.me} onUnauthorized={unauthorized} onSignOut={signOut} />;
    }
  }
}
