import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { editedAnswer } from './edited-answer.js';
import { dateTime, timeAgo } from './format.js';
import type { Connection } from './hooks.js';
import { commandFor, keepSelection, moveSelection } from './keys.js';
import { ProposalCard } from './proposal-card.js';
import type { QueueItem } from './wire.js';

export type Decision =
  | { kind: 'accept'; note?: string; answer?: string; structured?: unknown }
  | { kind: 'reject'; reason: string }
  | { kind: 'return'; instructions?: string };

export interface QueueViewProps {
  items: QueueItem[] | null;
  connection: Connection;
  /** The server cannot be reached: an empty list means "unknown", not "nothing pending". */
  unreachable: boolean;
  now: number;
  selected: string | null;
  onSelect: (id: string | null) => void;
  /** Resolves false when the decision did not go ahead (no name given, or the call failed). */
  decide: (item: QueueItem, decision: Decision) => Promise<boolean>;
}

/** What kind of element a key press came from (text fields keep their letters). */
export function keyTarget(target: EventTarget | null): 'field' | 'control' | 'other' {
  if (!(target instanceof HTMLElement)) return 'other';
  if (target.isContentEditable || target.matches('input, textarea, select')) return 'field';
  if (target.matches('button, a[href], summary')) return 'control';
  return 'other';
}

export const dialogOpen = () => document.querySelector('dialog[open]') !== null;

const focusById = (id: string) => document.getElementById(id)?.focus();

/** The approval queue: one card per pending proposal, worked with the mouse, touch or the keyboard. */
export function QueueView(props: QueueViewProps) {
  const { items, onSelect } = props;
  const ids = (items ?? []).map((i) => i.proposal.id);
  const [notes, setNotes] = useState<Record<string, string>>({});
  const [rejecting, setRejecting] = useState<string | null>(null);
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const [reasonError, setReasonError] = useState<string | null>(null);
  // Edits of answers, and the proposal being sent back with its instructions.
  const [edits, setEdits] = useState<Record<string, string>>({});
  // The structured form's edit (JSON text), for proposals whose structured form is not just the text.
  const [structuredEdits, setStructuredEdits] = useState<Record<string, string>>({});
  const [structuredError, setStructuredError] = useState<string | null>(null);
  const [returning, setReturning] = useState<string | null>(null);
  const [instructions, setInstructions] = useState<Record<string, string>>({});
  const [instructionsError, setInstructionsError] = useState<string | null>(null);
  const seenIds = useRef<string[]>([]);
  const cards = useRef(new Map<string, HTMLElement>());

  // The selection as of this render: when the selected proposal just left the queue (a decision here
  // or elsewhere), the next one, at once, so a fast second key press acts on what the reviewer sees.
  const selected = keepSelection(seenIds.current, ids, props.selected);
  // Layout effects here and below: focus moves before the next key press, never after a paint.
  useLayoutEffect(() => {
    seenIds.current = ids;
    if (selected !== props.selected) onSelect(selected);
    // The focused card was removed: focus follows the selection, so a screen reader lands on the next
    // proposal and Tab starts from there.
    const lost = !document.activeElement || document.activeElement === document.body;
    if (lost && selected !== null && !dialogOpen()) cards.current.get(selected)?.focus();
  }, [ids.join(','), selected]);

  useLayoutEffect(() => {
    if (rejecting) focusById(`reason-${rejecting}`);
  }, [rejecting]);
  useLayoutEffect(() => {
    if (returning) focusById(`instructions-${returning}`);
  }, [returning]);

  const select = (id: string | null, focus: boolean) => {
    onSelect(id);
    if (focus && id) cards.current.get(id)?.focus();
  };

  const accept = (item: QueueItem) => {
    const id = item.proposal.id;
    const note = notes[id]?.trim();
    const edited = editedAnswer(item, edits[id]);
    let structured: unknown;
    if (edited && structuredEdits[id] !== undefined) {
      try {
        structured = JSON.parse(structuredEdits[id]!);
      } catch {
        setStructuredError(id);
        focusById(`structured-${id}`);
        return;
      }
    }
    setStructuredError(null);
    void props.decide(item, { kind: 'accept', ...(note ? { note } : {}), ...(edited ? { answer: edited } : {}), ...(structured !== undefined ? { structured } : {}) });
  };

  const startReturn = (id: string) => {
    onSelect(id);
    setRejecting(null);
    setInstructionsError(null);
    setReturning(id);
  };

  const cancelReturn = (id: string) => {
    setReturning(null);
    setInstructionsError(null);
    cards.current.get(id)?.focus();
  };

  const sendBack = (item: QueueItem) => {
    const text = instructions[item.proposal.id]?.trim() ?? '';
    // A library answer sent back is "not a match": an expert is asked, with or without a note.
    if (!text && item.proposal.provenance.reused_from === undefined) {
      setInstructionsError(item.proposal.id);
      focusById(`instructions-${item.proposal.id}`);
      return;
    }
    setInstructionsError(null);
    setReturning(null);
    void props.decide(item, text ? { kind: 'return', instructions: text } : { kind: 'return' });
  };

  const startReject = (id: string) => {
    onSelect(id);
    setReasonError(null);
    setRejecting(id);
  };

  const cancelReject = (id: string) => {
    setRejecting(null);
    setReasonError(null);
    cards.current.get(id)?.focus();
  };

  const reject = (item: QueueItem) => {
    const reason = reasons[item.proposal.id]?.trim() ?? '';
    if (!reason) {
      setReasonError(item.proposal.id);
      focusById(`reason-${item.proposal.id}`);
      return;
    }
    setReasonError(null);
    setRejecting(null);
    void props.decide(item, { kind: 'reject', reason });
  };

  // One keydown listener for the view's life; it reads this render's state through a ref, so keys
  // pressed faster than the browser paints still act on the current queue.
  const onKey = (event: KeyboardEvent) => {
    const command = commandFor({
      key: event.key, ctrlKey: event.ctrlKey, metaKey: event.metaKey, altKey: event.altKey,
      target: keyTarget(event.target), dialogOpen: dialogOpen(),
    });
    if (!command || command === 'help') return;
    const item = items?.find((i) => i.proposal.id === selected);
    if (command === 'next' || command === 'prev') {
      event.preventDefault();
      return select(moveSelection(ids, selected, command === 'next' ? 1 : -1), true);
    }
    if (command === 'escape') {
      if (rejecting) return cancelReject(rejecting);
      if (returning) return cancelReturn(returning);
      if (keyTarget(event.target) === 'field' && selected) cards.current.get(selected)?.focus();
      return;
    }
    if (!item) return;
    event.preventDefault();
    if (command === 'accept') accept(item);
    else if (command === 'reject') startReject(item.proposal.id);
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
  return (
    <section class="queue" aria-labelledby="queue-title">
      <div class="view-head">
        <h1 id="queue-title">Review queue</h1>
        <p class="view-sub">
          {items === null ? 'Loading…' : props.unreachable ? (count === 0 ? 'Pending: unknown' : `${count} pending when last seen`) : `${count} pending`}
          <LiveBadge connection={props.connection} />
        </p>
      </div>
      {props.unreachable && count === 0 ? (
        <div class="empty card" role="status">
          <h2>Queue unknown</h2>
          <p class="muted">The server cannot be reached, so there is no way to tell what is pending. This page reconnects by itself.</p>
        </div>
      ) : items === null ? null : count === 0 ? (
        <div class="empty card" role="status">
          <h2>Nothing pending</h2>
          <p class="muted">New proposals appear here as soon as experts answer; no need to reload.</p>
        </div>
      ) : (
        <ol class="cards" aria-label="Pending proposals, oldest first">
          {items.map((item, index) => {
            const id = item.proposal.id;
            return (
              <ProposalCard
                key={id}
                item={item}
                position={`${index + 1} of ${count}`}
                arrived={timeAgo(item.proposal.created_at, props.now)}
                arrivedTitle={dateTime(item.proposal.created_at)}
                selected={id === selected}
                cardRef={(el) => (el ? cards.current.set(id, el) : cards.current.delete(id))}
                onSelect={() => onSelect(id)}
                note={notes[id] ?? ''}
                onNote={(text) => setNotes((n) => ({ ...n, [id]: text }))}
                onAccept={() => accept(item)}
                rejecting={rejecting === id}
                reason={reasons[id] ?? ''}
                onReason={(text) => {
                  setReasons((r) => ({ ...r, [id]: text }));
                  if (text.trim()) setReasonError(null);
                }}
                reasonMissing={reasonError === id}
                onStartReject={() => startReject(id)}
                onReject={() => reject(item)}
                onCancelReject={() => cancelReject(id)}
                edit={edits[id] ?? null}
                onEdit={(text) => setEdits((e) => ({ ...e, [id]: text }))}
                onResetEdit={() => {
                  setEdits(({ [id]: _dropped, ...rest }) => rest);
                  setStructuredEdits(({ [id]: _gone, ...rest }) => rest);
                }}
                structuredEdit={structuredEdits[id] ?? null}
                onStructuredEdit={(text) => setStructuredEdits((e) => ({ ...e, [id]: text }))}
                structuredInvalid={structuredError === id}
                returning={returning === id}
                instructions={instructions[id] ?? ''}
                onInstructions={(text) => {
                  setInstructions((r) => ({ ...r, [id]: text }));
                  if (text.trim()) setInstructionsError(null);
                }}
                instructionsMissing={instructionsError === id}
                onStartReturn={() => startReturn(id)}
                onReturn={() => sendBack(item)}
                onCancelReturn={() => cancelReturn(id)}
              />
            );
          })}
        </ol>
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
