import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { apiClient, probe, signInState, signOutSession, tokenStore, Unauthorized, type Me, type SignInOffer } from './api.js';
import { AnswersView } from './answers-view.js';
import { ConsumerToken, NotAReviewer } from './cannot-review.js';
import { NameDialog, ShortcutsDialog } from './dialogs.js';
import { ExpertsView } from './experts-view.js';
import { useLiveQueue, useNow, useRoute } from './hooks.js';
import { commandFor } from './keys.js';
import { TokenPrompt } from './prompt.js';
import { SignInChoice } from './sign-in.js';
import { dialogOpen, keyTarget, QueueView, type Decision } from './queue.js';
import { RequestView } from './request-view.js';
import { RequestsView } from './requests-view.js';
import { dateTime } from './format.js';
import type { QueueItem } from './wire.js';

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

const NAME_KEY = 'expertq.decided_by';
const short = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}…` : text);

function Shell(props: { token: string | null; me: Me; onUnauthorized: () => void; onSignOut: () => void }) {
  const { onUnauthorized } = props;
  const api = useMemo(() => apiClient(props.token), [props.token]);
  const route = useRoute();
  const now = useNow();
  const queue = useLiveQueue(api, onUnauthorized);
  const [selected, setSelected] = useState<string | null>(null);
  const [help, setHelp] = useState(false);
  // A named token or a signed-in person decides as itself (the server records that name); only the unnamed admin token asks.
  const tokenName = props.me.name;
  const [name, setName] = useState(() => tokenName ?? localStorage.getItem(NAME_KEY) ?? '');
  const [askName, setAskName] = useState(false);
  const nameWaiter = useRef<((name: string | null) => void) | null>(null);
  const [flash, setFlash] = useState<{ text: string; tone: 'info' | 'error' } | null>(null);

  const announce = useCallback((text: string, tone: 'info' | 'error' = 'info') => setFlash({ text, tone }), []);
  useEffect(() => {
    if (!flash) return;
    const timer = setTimeout(() => setFlash(null), 8_000);
    return () => clearTimeout(timer);
  }, [flash]);

  // Null until the first queue arrives: no count is shown then, never a 0 nobody has seen.
  const pending = queue.items === null ? null : queue.items.length;
  useEffect(() => {
    document.title = pending ? `(${pending}) Review queue · expertq` : 'Review queue · expertq';
  }, [pending]);

  const mayRetire = props.me.routes === '*' || props.me.routes.includes('POST /answers/:id/retire');

  /** The reviewer's name for `decided_by`: remembered, else asked for once. */
  const reviewer = (): Promise<string | null> => {
    if (name) return Promise.resolve(name);
    setAskName(true);
    return new Promise((resolve) => (nameWaiter.current = resolve));
  };

  const nameDone = (value: string | null) => {
    setAskName(false);
    if (value) {
      localStorage.setItem(NAME_KEY, value);
      setName(value);
    }
    nameWaiter.current?.(value);
    nameWaiter.current = null;
  };

  const decide = async (item: QueueItem, decision: Decision): Promise<boolean> => {
    const decidedBy = await reviewer();
    if (!decidedBy) return false;
    const id = item.proposal.id;
    const wanted = decision.kind === 'accept' ? 'accepted' : 'rejected';
    queue.hide(id);
    try {
      const result =
        decision.kind === 'accept'
          ? await api.accept(id, {
            decided_by: decidedBy,
            ...(decision.note ? { note: decision.note } : {}),
            ...(decision.answer ? { answer: decision.answer } : {}),
            ...(decision.structured !== undefined ? { structured: decision.structured } : {}),
          })
          : decision.kind === 'reject'
            ? await api.reject(id, { decided_by: decidedBy, reason: decision.reason })
            : await api.returnProposal(id, { decided_by: decidedBy, ...(decision.instructions ? { instructions: decision.instructions } : {}) });
      const done = decision.kind === 'return' ? result.decision?.reason === 'returned' && result.decision.decided_by === decidedBy : result.status === wanted;
      const verb = { accept: decision.kind === 'accept' && decision.answer ? 'Accepted (edited)' : 'Accepted', reject: 'Rejected', return: `Sent back to ${item.proposal.provenance.expert_name}` }[decision.kind];
      announce(
        done
          ? `${verb}: ${short(item.request.question)}`
          : `Already ${result.status} by ${result.decision?.decided_by ?? 'another reviewer'}: ${short(item.request.question)}`,
      );
      return true;
    } catch (error) {
      if (error instanceof Unauthorized) {
        onUnauthorized();
        return false;
      }
      queue.unhide(id);
      setSelected(id);
      announce(`Could not ${decision.kind} “${short(item.request.question)}”: ${error instanceof Error ? error.message : String(error)}`, 'error');
      return false;
    }
  };

  // Keys every view shares: ? for the shortcuts, Escape back to the queue from the other views.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const command = commandFor({
        key: event.key, ctrlKey: event.ctrlKey, metaKey: event.metaKey, altKey: event.altKey,
        target: keyTarget(event.target), dialogOpen: dialogOpen(),
      });
      if (command === 'help') {
        event.preventDefault();
        setHelp(true);
      } else if (command === 'escape' && route.view !== 'queue' && keyTarget(event.target) !== 'field') {
        location.hash = '#/';
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [route.view]);

  return (
    <>
      <a class="skip" href="#main" onClick={(e) => {
        e.preventDefault();
        document.getElementById('main')?.focus();
      }}>Skip to content</a>
      <header class="top">
        <div class={route.view === 'requests' ? 'top-inner wide' : 'top-inner'}>
          <a class="brand" href="#/">expertq</a>
          <nav aria-label="Views">
            <a href="#/" aria-current={route.view === 'queue' ? 'page' : undefined}>
              Queue{' '}
              {queue.unreachableSince !== null
                ? <span class="count" aria-label="pending: unknown, the server cannot be reached">?</span>
                : pending === null
                  ? <span class="count" aria-label="pending: loading">…</span>
                  : <span class="count" aria-label={`${pending} pending`}>{pending}</span>}
            </a>
            <a href="#/requests" aria-current={route.view === 'requests' ? 'page' : undefined}>Requests</a>
            <a href="#/experts" aria-current={route.view === 'experts' ? 'page' : undefined}>Experts</a>
            <a href="#/answers" aria-current={route.view === 'answers' ? 'page' : undefined}>Answers</a>
          </nav>
          <div class="top-tools">
            {tokenName && props.me.via === 'session' ? (
              <span class="reviewer" title={`Decisions are recorded as ${tokenName}, the name your identity provider vouches for`}>
                <span class="muted">Signed in as</span> {tokenName} <span class="muted">({props.me.role})</span>
              </span>
            ) : tokenName ? (
              <span class="reviewer" title={`Decisions are recorded as ${tokenName}: the name of this ${props.me.role} token`}>
                <span class="muted">Reviewing as</span> {tokenName} <span class="muted">({props.me.role} token)</span>
              </span>
            ) : name ? (
              <button type="button" class="link reviewer" onClick={() => setAskName(true)} title="Change the name recorded with decisions">
                <span class="muted">Reviewing as</span> {name}
              </button>
            ) : null}
            <button type="button" class="icon" onClick={() => setHelp(true)} aria-keyshortcuts="?" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">?</button>
            {props.token || props.me.via === 'session' ? <button type="button" class="link" onClick={props.onSignOut}>Sign out</button> : null}
          </div>
        </div>
      </header>
      {queue.unreachableSince !== null ? (
        <div class="offline-banner" role="alert">
          <strong>Cannot reach the expertq server</strong> since {dateTime(new Date(queue.unreachableSince).toISOString())}.
          What you see may be out of date and decisions cannot be sent. Retrying every few seconds…
        </div>
      ) : null}
      <main id="main" tabIndex={-1} class={route.view === 'requests' ? 'wide' : undefined}>
        <div class={`flash${flash ? ` flash-${flash.tone}` : ''}`} role={flash?.tone === 'error' ? 'alert' : 'status'} aria-live={flash?.tone === 'error' ? 'assertive' : 'polite'}>
          {flash?.text ?? ''}
        </div>
        {route.view === 'request' ? (
          <RequestView api={api} id={route.id} onUnauthorized={onUnauthorized} />
        ) : route.view === 'requests' ? (
          <RequestsView api={api} filters={route.filters} onUnauthorized={onUnauthorized} />
        ) : route.view === 'answers' ? (
          <AnswersView api={api} filters={route.filters} onUnauthorized={onUnauthorized} announce={announce} reviewer={mayRetire ? reviewer : null} />
        ) : route.view === 'experts' ? (
          <ExpertsView api={api} onUnauthorized={onUnauthorized} announce={announce} isAdmin={props.me.role === 'admin'} mutedBy={tokenName ?? (name || null)} />
        ) : (
          <QueueView items={queue.items} connection={queue.connection} unreachable={queue.unreachableSince !== null} now={now} selected={selected} onSelect={setSelected} decide={decide} />
        )}
      </main>
      <ShortcutsDialog open={help} onClose={() => setHelp(false)} />
      <NameDialog open={askName} initial={name} onDone={nameDone} />
    </>
  );
}
