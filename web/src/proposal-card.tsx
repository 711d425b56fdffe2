import { useRef, useState } from 'preact/hooks';
import { AcceptForm } from './accept-form.js';
import { AnswerEdit } from './answer-edit.js';
import { CardVotes } from './card-votes.js';
import { useCardDrafts } from './card-drafts.js';
import type { Decide, OpenForm } from './decision.js';
import { editedAnswer } from './edited-answer.js';
import { structuredIsVerbatim } from './format.js';
import { focusById } from './key-target.js';
import { EarlierAnswers, ProposalFacts, ProposalHead } from './proposal-parts.js';
import { RejectForm } from './reject-form.js';
import { SendBackForm } from './send-back-form.js';
import type { QueueItem } from './wire.js';

/** What the queue holds of a card: its element (for focus) and its accept (for the `a` key). */
export interface CardHandle {
  el: HTMLElement;
  accept: () => void;
}

export interface ProposalCardProps {
  item: QueueItem;
  /** "2 of 5". */
  position: string;
  now: number;
  selected: boolean;
  /** The decision form open on this card instead of the accept form, if any. */
  form: OpenForm | null;
  /** Receives the card's handle when it is on the screen, null when it leaves. */
  handle: (handle: CardHandle | null) => void;
  onSelect: () => void;
  onOpenForm: (form: OpenForm) => void;
  /** Closes the form; `refocus` (a cancel, not a decision) puts focus back on the card. */
  onCloseForm: (form: OpenForm, refocus: boolean) => void;
  decide: Decide;
}

/**
 * One pending proposal: what was asked, by whom and why; the expert's answer verbatim; its structured
 * form and confidence; the votes so far under a review rule; and the decision controls. The card keeps what the reviewer types (note, edit,
 * reason, instructions) itself. It is the keyboard's unit of selection (roving tabindex: only the
 * selected card is in the Tab order, j/k move between them).
 */
export function ProposalCard(props: ProposalCardProps) {
  const { item } = props;
  const { proposal } = item;
  const id = proposal.id;
  const questionId = `question-${id}`;
  const [drafts, setDraft] = useCardDrafts(id);
  const [structuredInvalid, setStructuredInvalid] = useState(false);
  const verbatim = structuredIsVerbatim(proposal.structured, proposal.answer);
  const edited = editedAnswer(item, drafts.edit ?? undefined);

  const accept = () => {
    const note = drafts.note.trim();
    let structured: unknown;
    if (edited && drafts.structured !== null) {
      try {
        structured = JSON.parse(drafts.structured);
      } catch {
        setStructuredInvalid(true);
        focusById(`structured-${id}`);
        return;
      }
    }
    setStructuredInvalid(false);
    void props.decide(item, { kind: 'accept', ...(note ? { note } : {}), ...(edited ? { answer: edited } : {}), ...(structured !== undefined ? { structured } : {}) });
  };
  // The `a` key acts on what the card holds at the moment it is pressed.
  const latestAccept = useRef(accept);
  latestAccept.current = accept;

  return (
    <li class="card-slot">
      <article
        ref={(el) => props.handle(el ? { el, accept: () => latestAccept.current() } : null)}
        class={`card proposal${props.selected ? ' selected' : ''}`}
        tabIndex={props.selected ? 0 : -1}
        aria-labelledby={questionId}
        aria-current={props.selected ? 'true' : undefined}
        data-proposal-id={id}
        onFocusIn={props.onSelect}
        onClick={props.onSelect}
      >
        <ProposalHead item={item} position={props.position} now={props.now} questionId={questionId} />

        <section class="answer" aria-label={`Answer from ${proposal.provenance.expert_name}`}>
          <p class="answer-by">
            Answer from <strong>{proposal.provenance.expert_name}</strong>
            {proposal.provenance.escalated ? <span class="tag">after escalation</span> : null}
          </p>
          <blockquote class="answer-text">{proposal.answer}</blockquote>
          <AnswerEdit
            proposal={proposal}
            verbatim={verbatim}
            edit={drafts.edit}
            structured={drafts.structured}
            structuredInvalid={structuredInvalid}
            onEdit={(text) => setDraft('edit', text)}
            onStructured={(text) => setDraft('structured', text)}
            onReset={() => {
              setDraft('edit', null);
              setDraft('structured', null);
            }}
          />
        </section>

        <EarlierAnswers history={item.history} />
        <ProposalFacts item={item} verbatim={verbatim} />
        <CardVotes proposal={proposal} now={props.now} />

        {props.form === 'return' ? (
          <SendBackForm
            id={id}
            expertName={proposal.provenance.expert_name}
            reused={proposal.provenance.reused_from !== undefined}
            instructions={drafts.instructions}
            onInstructions={(text) => setDraft('instructions', text)}
            onSendBack={(text) => {
              props.onCloseForm('return', false);
              void props.decide(item, text ? { kind: 'return', instructions: text } : { kind: 'return' });
            }}
            onCancel={() => props.onCloseForm('return', true)}
          />
        ) : props.form === 'reject' ? (
          <RejectForm
            id={id}
            reason={drafts.reason}
            onReason={(text) => setDraft('reason', text)}
            onReject={(reason) => {
              props.onCloseForm('reject', false);
              void props.decide(item, { kind: 'reject', reason });
            }}
            onCancel={() => props.onCloseForm('reject', true)}
          />
        ) : (
          <AcceptForm
            id={id}
            note={drafts.note}
            onNote={(text) => setDraft('note', text)}
            edited={edited !== null}
            onAccept={accept}
            onStartReject={() => props.onOpenForm('reject')}
            onStartReturn={() => props.onOpenForm('return')}
          />
        )}
      </article>
    </li>
  );
}
