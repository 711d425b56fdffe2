import { useEffect, useMemo, useState } from 'preact/hooks';
import { apiClient, type Me } from './api.js';
import { AnswersView } from './answers-view.js';
import { decider } from './decider.js';
import { NameDialog, ShortcutsDialog } from './dialogs.js';
import { ExpertsView } from './experts-view.js';
import { Flash, useFlash } from './flash.js';
import { LazyInsightsView } from './lazy-insights.js';
import { dateTime } from './format.js';
import { useLiveQueue, useNow, useRoute } from './hooks.js';
import { dialogOpen, keyTarget } from './key-target.js';
import { commandFor } from './keys.js';
import { QueueView } from './queue.js';
import { RequestView } from './request-view.js';
import { RequestsView } from './requests-view.js';
import { useReviewerName } from './reviewer-name.js';
import { queueHash } from './routes.js';
import { TopBar } from './top-bar.js';

export interface ShellProps {
  token: string | null;
  me: Me;
  onUnauthorized: () => void;
  onSignOut: () => void;
}

/** The signed-in page: the top bar, the live queue, the view the address names, and the dialogs. */
export function Shell(props: ShellProps) {
  const { onUnauthorized } = props;
  const api = useMemo(() => apiClient(props.token), [props.token]);
  const route = useRoute();
  const now = useNow();
  const mine = route.view === 'queue' && route.mine === true;
  const queue = useLiveQueue(api, onUnauthorized, mine);
  const [selected, setSelected] = useState<string | null>(null);
  const [help, setHelp] = useState(false);
  const tokenName = props.me.name;
  const names = useReviewerName(tokenName);
  const [flash, announce] = useFlash();

  // Null until the first queue arrives: no count is shown then, never a 0 nobody has seen.
  const pending = queue.items === null ? null : queue.items.length;
  useEffect(() => {
    document.title = pending ? `(${pending}) Review queue · expertq` : 'Review queue · expertq';
  }, [pending]);

  const mayRetire = props.me.routes === '*' || props.me.routes.includes('POST /answers/:id/retire');
  const decide = decider({ api, queue, reviewer: names.reviewer, announce, onUnauthorized, onSelect: setSelected });

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
      <TopBar
        route={route}
        me={props.me}
        pending={pending}
        unreachable={queue.unreachableSince !== null}
        name={names.name}
        onChangeName={names.change}
        onHelp={() => setHelp(true)}
        onSignOut={props.token || props.me.via === 'session' ? props.onSignOut : null}
      />
      {queue.unreachableSince !== null ? (
        <div class="offline-banner" role="alert">
          <strong>Cannot reach the expertq server</strong> since {dateTime(new Date(queue.unreachableSince).toISOString())}.
          What you see may be out of date and decisions cannot be sent. Retrying every few seconds…
        </div>
      ) : null}
      <main id="main" tabIndex={-1} class={route.view === 'requests' || route.view === 'insights' ? 'wide' : undefined}>
        <Flash flash={flash} />
        {route.view === 'request' ? (
          <RequestView api={api} id={route.id} onUnauthorized={onUnauthorized} />
        ) : route.view === 'requests' ? (
          <RequestsView api={api} filters={route.filters} onUnauthorized={onUnauthorized} />
        ) : route.view === 'answers' ? (
          <AnswersView api={api} filters={route.filters} onUnauthorized={onUnauthorized} announce={announce} reviewer={mayRetire ? names.reviewer : null} />
        ) : route.view === 'insights' ? (
          <LazyInsightsView api={api} filters={route.filters} onUnauthorized={onUnauthorized} />
        ) : route.view === 'experts' ? (
          <ExpertsView api={api} onUnauthorized={onUnauthorized} announce={announce} isAdmin={props.me.role === 'admin'} mutedBy={tokenName ?? (names.name || null)} />
        ) : (
          <QueueView items={queue.items} connection={queue.connection} unreachable={queue.unreachableSince !== null} now={now} selected={selected} onSelect={setSelected} decide={decide} mine={mine} onMine={(on) => (location.hash = queueHash(on))} />
        )}
      </main>
      <ShortcutsDialog open={help} onClose={() => setHelp(false)} />
      <NameDialog open={names.asking} initial={names.name} onDone={names.done} />
    </>
  );
}
