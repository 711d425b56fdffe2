import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { DraftShelfContext, type DraftShelf } from './card-drafts.js';
import type { Decide, OpenForm } from './decision.js';
import type { Connection } from './hooks.js';
import { dialogOpen, focusById, keyTarget } from './key-target.js';
import { commandFor, keepSelection, moveSelection } from './keys.js';
import { ProposalCard, type CardHandle } from './proposal-card.js';
import type { QueueItem } from './wire.js';

export interface QueueViewProps {
  items: QueueItem[] | null;
  connection: Connection;
  /** The server cannot be reached: an empty list means "unknown", not "nothing pending". */
  unreachable: boolean;
  now: number;
  selected: string | null;
  onSelect: (id: string | null) => void;
  /** Resolves false when the decision did not go ahead (no name given, or the call failed). */
  decide: Decide;
  /** Only what still waits for this reviewer's vote is shown. */
  mine: boolean;
  onMine: (mine: boolean) => void;
}

/**
 * The approval queue: one card per pending proposal, worked with the mouse, touch or the keyboard.
 * The queue owns what spans cards (the selection, the one open reject or send-back form, the keys);
 * each card owns what is typed on it.
 */
export function QueueView(props: QueueViewProps) {
  const { items, onSelect } = props;
  const ids = (items ?? []).map((i) => i.proposal.id);
  const [rejecting, setRejecting] = useState<string | null>(null);
  const [returning, setReturning] = useState<string | null>(null);
  const shelf = useRef<DraftShelf>(new Map()).current;
  const seenIds = useRef<string[]>([]);
  const cards = useRef(new Map<string, CardHandle>());
  const focusCard = (id: string) => cards.current.get(id)?.el.focus();

  // The selection as of this render: when the selected proposal just left the queue (a decision here
  // or elsewhere), the next one, at once, so a fast second key press acts on what the reviewer sees.
  const selected = keepSelection(seenIds.current, ids, props.selected);
  // A layout effect: focus moves before the next key press, never after a paint.
  useLayoutEffect(() => {
    seenIds.current = ids;
    if (selected !== props.selected) onSelect(selected);
    // The focused card was removed: focus follows the selection, so a screen reader lands on the next
    // proposal and Tab starts from there.
    const lost = !document.activeElement || document.activeElement === document.body;
    if (lost && selected !== null && !dialogOpen()) focusCard(selected);
  }, [ids.join(','), selected]);

  const select = (id: string | null, focus: boolean) => {
    onSelect(id);
    if (focus && id) focusCard(id);
  };

  const openForm = (id: string, form: OpenForm) => {
    onSelect(id);
    if (form === 'reject') return setRejecting(id);
    setRejecting(null);
    setReturning(id);
  };

  const closeForm = (id: string, form: OpenForm, refocus: boolean) => {
    (form === 'reject' ? setRejecting : setReturning)(null);
    if (refocus) focusCard(id);
  };

  // One keydown listener for the view's life; it reads this render's state through a ref, so keys
  // pressed faster than the browser paints still act on the current queue.
  const onKey = (event: KeyboardEvent) => {
    const command = commandFor({
      key: event.key, ctrlKey: event.ctrlKey, metaKey: event.metaKey, altKey: event.altKey,
      target: keyTarget(event.target), dialogOpen: dialogOpen(),
    });
    if (!command || command === 'help') return;
    if (command === 'mine') {
      event.preventDefault();
      return props.onMine(!props.mine);
    }
    const item = items?.find((i) => i.proposal.id === selected);
    if (command === 'next' || command === 'prev') {
      event.preventDefault();
      return select(moveSelection(ids, selected, command === 'next' ? 1 : -1), true);
    }
    if (command === 'escape') {
      if (rejecting) return closeForm(rejecting, 'reject', true);
      if (returning) return closeForm(returning, 'return', true);
      if (keyTarget(event.target) === 'field' && selected) focusCard(selected);
      return;
    }
    if (!item) return;
    event.preventDefault();
    if (command === 'accept') cards.current.get(item.proposal.id)?.accept();
    else if (command === 'reject') openForm(item.proposal.id, 'reject');
    else if (command === 'note') focusById(`note-${item.proposal.id}`);
    else if (command === 'open') location.hash = `#/requests/${encodeURIComponent(item.request.id)}`;
  };
  const keyHandler = useRef(onKey);
  keyHandler.current = onKey;
  useEffect(() => {
    const listener = (event: KeyboardEvent) => keyHandler.current(event);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);

  const count = items?.length ?? 0;
  const pending = props.mine ? 'waiting for your vote' : 'pending';
  return (
    <section class="queue" aria-labelledby="queue-title">
      <div class="view-head">
        <h1 id="queue-title">Review queue</h1>
        <p class="view-sub">
          {items === null ? 'Loading…' : props.unreachable ? (count === 0 ? 'Pending: unknown' : `${count} ${pending} when last seen`) : `${count} ${pending}`}
          <LiveBadge connection={props.connection} />
        </p>
        <button type="button" class="filter" aria-pressed={props.mine} aria-keyshortcuts="m" onClick={() => props.onMine(!props.mine)} title="Only the proposals that still wait for your vote">
          Waiting for my vote <kbd aria-hidden="true">m</kbd>
        </button>
      </div>
      {props.unreachable && count === 0 ? (
        <div class="empty card" role="status">
          <h2>Queue unknown</h2>
          <p class="muted">The server cannot be reached, so there is no way to tell what is pending. This page reconnects by itself.</p>
        </div>
      ) : items === null ? null : count === 0 && props.mine ? (
        <div class="empty card" role="status">
          <h2>Nothing waits for your vote</h2>
          <p class="muted">Proposals you may decide and have not voted on appear here; the whole queue is one key away (m).</p>
        </div>
      ) : count === 0 ? (
        <div class="empty card" role="status">
          <h2>Nothing pending</h2>
          <p class="muted">New proposals appear here as soon as experts answer; no need to reload.</p>
        </div>
      ) : (
        <DraftShelfContext.Provider value={shelf}>
          <ol class="cards" aria-label="Pending proposals, oldest first">
            {items.map((item, index) => {
              const id = item.proposal.id;
              return (
                <ProposalCard
                  key={id}
                  item={item}
                  position={`${index + 1} of ${count}`}
                  now={props.now}
                  selected={id === selected}
                  form={returning === id ? 'return' : rejecting === id ? 'reject' : null}
                  handle={(handle) => (handle ? cards.current.set(id, handle) : cards.current.delete(id))}
                  onSelect={() => onSelect(id)}
                  onOpenForm={(form) => openForm(id, form)}
                  onCloseForm={(form, refocus) => closeForm(id, form, refocus)}
                  decide={props.decide}
                />
              );
            })}
          </ol>
        </DraftShelfContext.Provider>
      )}
    </section>
  );
}

function LiveBadge({ connection }: { connection: Connection }) {
  const text = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' }[connection];
  return (
    <span class={`live live-${connection}`} title="New proposals appear without a reload">
      <span class="dot" aria-hidden="true" />
      {text}
    </span>
  );
}
