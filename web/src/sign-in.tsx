import type { SignInOffer } from './api.js';

/**
 * The first screen when the server offers sign-in and this browser has neither a session nor a
 * token: the identity provider first, the API token prompt as the secondary choice.
 */
export function SignInChoice(props: { offer: SignInOffer; message: string | null; onUseToken: () => void }) {
  return (
    <main id="main" class="signin">
      <div class="card signin-card" aria-labelledby="signin-title">
        <p class="brand-line" aria-hidden="true">expertq</p>
        <h1 id="signin-title">Sign in to the review queue</h1>
        <p class="muted">Sign in with your organisation's account. Your decisions are recorded under the name it vouches for.</p>
        {props.message ? <p class="alert" role="alert">{props.message}</p> : null}
        <a class="button primary wide" href={props.offer.login_url}>Sign in with {props.offer.label}</a>
        <button type="button" class="link secondary-choice" onClick={props.onUseToken}>Use an API token instead</button>
      </div>
    </main>
  );
}
