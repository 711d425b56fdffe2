import type { Me } from './api.js';

/** A consumer token may submit and read its own requests, not review: say so instead of an empty queue. */
export function ConsumerToken(props: { me: Me; onSignOut: () => void }) {
  return (
    <main id="main" class="center">
      <div class="card signin-card">
        <h1>This token cannot review</h1>
        <p class="alert" role="alert">
          It is the consumer token of <strong>{props.me.name}</strong>: it may submit and read its own requests, but not
          see the review queue or decide. Sign in with a reviewer or admin token.
        </p>
        <button type="button" class="primary" onClick={props.onSignOut}>Sign out</button>
      </div>
    </main>
  );
}

/**
 * Signed in, but in none of the groups that may review: the server answers every review call with 403,
 * so say why once instead of showing a queue that cannot load.
 */
export function NotAReviewer(props: { me: Me; onSignOut: () => void }) {
  return (
    <main id="main" class="center">
      <div class="card signin-card">
        <h1>You cannot review here</h1>
        <p class="alert" role="alert">
          You are signed in as <strong>{props.me.name}</strong>, but you are in none of the groups that may review, so you
          cannot see the review queue or decide. Ask an administrator to add you to a reviewer group, then sign out and
          sign in again.
        </p>
        <button type="button" class="primary" onClick={props.onSignOut}>Sign out</button>
      </div>
    </main>
  );
}
