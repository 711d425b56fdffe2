import type { Me } from './api.js';
import type { Route } from './routes.js';

export interface TopBarProps {
  route: Route;
  me: Me;
  /** Pending proposals; null until the first queue arrives. */
  pending: number | null;
  unreachable: boolean;
  /** The name decisions are recorded with, when the token or session does not bring one. */
  name: string;
  onChangeName: () => void;
  onHelp: () => void;
  /** Null: there is nothing to sign out of (authentication is off). */
  onSignOut: (() => void) | null;
}

/** The views, the queue's count, who is reviewing, the shortcuts and signing out. */
export function TopBar(props: TopBarProps) {
  const { route, me, pending } = props;
  const tokenName = me.name;
  // Reviewers and admins read the insights; a token scoped without them does not see the link.
  const insights = me.routes === '*' || me.routes.includes('GET /insights');
  const wide = route.view === 'requests' || route.view === 'insights';
  return (
    <header class="top">
      <div class={wide ? 'top-inner wide' : 'top-inner'}>
        <a class="brand" href="#/">expertq</a>
        <nav aria-label="Views">
          <a href="#/" aria-current={route.view === 'queue' ? 'page' : undefined}>
            Queue{' '}
            {props.unreachable
              ? <span class="count" aria-label="pending: unknown, the server cannot be reached">?</span>
              : pending === null
                ? <span class="count" aria-label="pending: loading">…</span>
                : <span class="count" aria-label={`${pending} pending`}>{pending}</span>}
          </a>
          <a href="#/requests" aria-current={route.view === 'requests' ? 'page' : undefined}>Requests</a>
          <a href="#/experts" aria-current={route.view === 'experts' ? 'page' : undefined}>Experts</a>
          <a href="#/answers" aria-current={route.view === 'answers' ? 'page' : undefined}>Answers</a>
          {insights ? <a href="#/insights" aria-current={route.view === 'insights' ? 'page' : undefined}>Insights</a> : null}
        </nav>
        <div class="top-tools">
          {tokenName && me.via === 'session' ? (
            <span class="reviewer" title={`Decisions are recorded as ${tokenName}, the name your identity provider vouches for`}>
              <span class="muted">Signed in as</span> {tokenName} <span class="muted">({me.role})</span>
            </span>
          ) : tokenName ? (
            <span class="reviewer" title={`Decisions are recorded as ${tokenName}: the name of this ${me.role} token`}>
              <span class="muted">Reviewing as</span> {tokenName} <span class="muted">({me.role} token)</span>
            </span>
          ) : props.name ? (
            <button type="button" class="link reviewer" onClick={props.onChangeName} title="Change the name recorded with decisions">
              <span class="muted">Reviewing as</span> {props.name}
            </button>
          ) : null}
          <button type="button" class="icon" onClick={props.onHelp} aria-keyshortcuts="?" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">?</button>
          {props.onSignOut ? <button type="button" class="link" onClick={props.onSignOut}>Sign out</button> : null}
        </div>
      </div>
    </header>
  );
}
