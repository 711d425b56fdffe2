import { confidenceText, draftedQuestion, structuredIsVerbatim, structuredText } from './format.js';
import { CopyId } from './copy-id.js';
import { editedAnswer } from './edited-answer.js';
import { LibrarySource } from './library-source.js';
import type { QueueItem } from './wire.js';

export interface ProposalCardProps {
  item: QueueItem;
  position: string;
  arrived: string;
  arrivedTitle: string;
  selected: boolean;
  cardRef: (el: HTMLElement | null) => void;
  onSelect: () => void;
  note: string;
  onNote: (text: string) => void;
  onAccept: () => void;
  rejecting: boolean;
  reason: string;
  onReason: (text: string) => void;
  reasonMissing: boolean;
  onStartReject: () => void;
  onReject: () => void;
  onCancelReject: () => void;
  /** The reviewer's edit of the answer (null: not editing). */
  edit: string | null;
  onEdit: (text: string) => void;
  onResetEdit: () => void;
  /** The structured form's edit as JSON text (null: not edited yet). */
  structuredEdit: string | null;
  onStructuredEdit: (text: string) => void;
  structuredInvalid: boolean;
  returning: boolean;
  instructions: string;
  onInstructions: (text: string) => void;
  instructionsMissing: boolean;
  onStartReturn: () => void;
  onReturn: () => void;
  onCancelReturn: () => void;
}

/**
 * One pending proposal: what was asked, by whom and why; the expert's answer verbatim; its structured
 * form and confidence; and the decision controls. The card is the keyboard's unit of selection
 * (roving tabindex: only the selected card is in the Tab order, j/k move between them).
 */
export function ProposalCard(props: ProposalCardProps) {
  const { proposal, request } = props.item;
  const id = proposal.id;
  const questionId = `question-${id}`;
  const verbatim = structuredIsVerbatim(proposal.structured, proposal.answer);
  const edited = editedAnswer(props.item, props.edit ?? undefined) !== null;
  const history = props.item.history;
  const drafted = draftedQuestion(request);
  const reused = proposal.provenance.reused_from !== undefined;
  return (
    <li class="card-slot">
      <article
        ref={props.cardRef}
        class={`card proposal${props.selected ? ' selected' : ''}`}
        tabIndex={props.selected ? 0 : -1}
        aria-labelledby={questionId}
        aria-current={props.selected ? 'true' : undefined}
        data-proposal-id={id}
        onFocusIn={props.onSelect}
        onClick={props.onSelect}
      >
        <header class="proposal-head">
          <span class="chip" title="Topic">{request.topic}</span>
          <span class="asker">
            <span class="sr-only">Requested by </span>
            <span aria-hidden="true">from </span>
            <strong>{request.consumer_id}</strong>
          </span>
          <time dateTime={proposal.created_at} title={props.arrivedTitle}>
            <span class="sr-only">arrived </span>
            {props.arrived}
          </time>
          <span class="position">{props.position}</span>
        </header>
        <p class="ids">
          <span>Proposal <CopyId id={id} label="proposal id" /></span>
          <span>
            <a href={`#/requests/${encodeURIComponent(request.id)}`} title="The request's details and audit trail">Request</a>{' '}
            <CopyId id={request.id} label="request id" />
          </span>
        </p>

        <h2 id={questionId} class="question">{request.question}</h2>
        {drafted ? (
          <p class="asked-as">
            <span class="label">Asked the expert as</span> {drafted}
          </p>
        ) : null}
        <p class="because">
          <span class="label">Asked because</span> {request.asked_because ?? '(no reason given)'}
        </p>

        <LibrarySource proposal={proposal} question={request.question} />

        <section class="answer" aria-label={`Answer from ${proposal.provenance.expert_name}`}>
          <p class="answer-by">
            Answer from <strong>{proposal.provenance.expert_name}</strong>
            {proposal.provenance.escalated ? <span class="tag">after escalation</span> : null}
          </p>
          <blockquote class="answer-text">{proposal.answer}</blockquote>
          {props.edit === null ? (
            <button type="button" class="link" onClick={() => props.onEdit(proposal.answer)}>
              Edit the answer before accepting
            </button>
          ) : (
            <div class="field edit-answer">
              <label for={`edit-${id}`}>
                Answer to deliver <span class="muted">(your edit; the expert's text above is kept)</span>
              </label>
              <textarea id={`edit-${id}`} rows={4} maxLength={4000} value={props.edit} onInput={(e) => props.onEdit(e.currentTarget.value)} />
              {verbatim ? null : (
                <>
                  <label for={`structured-${id}`}>
                    Structured form, corrected to match <span class="muted">(JSON; checked against the kind's schema)</span>
                  </label>
                  <textarea
                    id={`structured-${id}`}
                    rows={5}
                    class="mono"
                    value={props.structuredEdit ?? structuredText(proposal.structured)}
                    onInput={(e) => props.onStructuredEdit(e.currentTarget.value)}
                    aria-invalid={props.structuredInvalid ? 'true' : undefined}
                  />
                  {props.structuredInvalid ? <p class="field-error" role="alert">This is not valid JSON.</p> : null}
                </>
              )}
              <button type="button" class="link" onClick={props.onResetEdit}>Reset to the expert's answer</button>
            </div>
          )}
        </section>

        {history.length > 0 ? (
          <section class="history" aria-label="Earlier answers sent back">
            <h3>Earlier answers, sent back</h3>
            <ol>
              {history.map((h) => (
                <li key={h.proposal_id}>
                  <blockquote class="answer-text">{h.answer}</blockquote>
                  <p class="muted">Sent back by {h.returned_by}: {h.instructions ?? '(no instructions)'}</p>
                </li>
              ))}
            </ol>
          </section>
        ) : null}

        <dl class="facts">
          <div class="fact structured">
            <dt>Structured</dt>
            <dd>
              {verbatim ? (
                <span>
                  <code>{'{"text": …}'}</code> the answer verbatim
                </span>
              ) : (
                <pre>{structuredText(proposal.structured)}</pre>
              )}
            </dd>
          </div>
          <div class="fact">
            <dt>Confidence</dt>
            <dd>{confidenceText(proposal.confidence, proposal.provenance.llm)}</dd>
          </div>
          <div class="fact">
            <dt>Request</dt>
            <dd>
              <a href={`#/requests/${encodeURIComponent(request.id)}`} aria-label={`Request and audit trail for: ${request.question}`}>
                Trail and status
              </a>
            </dd>
          </div>
        </dl>

        {props.returning ? (
          <form
            class="actions"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              props.onReturn();
            }}
          >
            <div class="field">
              <label for={`instructions-${id}`}>
                {reused ? (
                  <>
                    Note for the expert <span class="muted">(optional; an expert is asked instead of reusing this answer)</span>
                  </>
                ) : (
                  <>
                    Instructions for {proposal.provenance.expert_name} <span class="muted">(required; they are asked again with these)</span>
                  </>
                )}
              </label>
              <textarea
                id={`instructions-${id}`}
                rows={3}
                value={props.instructions}
                onInput={(e) => props.onInstructions(e.currentTarget.value)}
                aria-required="true"
                aria-invalid={props.instructionsMissing ? 'true' : undefined}
                aria-describedby={props.instructionsMissing ? `instructions-error-${id}` : undefined}
                maxLength={2000}
              />
              {props.instructionsMissing ? (
                <p id={`instructions-error-${id}`} class="field-error" role="alert">
                  Say what the expert should change or add: it is sent to them.
                </p>
              ) : null}
            </div>
            <div class="buttons">
              <button type="submit" class="primary">Send back</button>
              <button type="button" onClick={props.onCancelReturn}>Cancel <kbd aria-hidden="true">Esc</kbd></button>
            </div>
          </form>
        ) : props.rejecting ? (
          <form
            class="actions"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              props.onReject();
            }}
          >
            <div class="field">
              <label for={`reason-${id}`}>Reason for rejecting <span class="muted">(required, sent to the consumer)</span></label>
              <input
                id={`reason-${id}`}
                value={props.reason}
                onInput={(e) => props.onReason(e.currentTarget.value)}
                aria-required="true"
                aria-invalid={props.reasonMissing ? 'true' : undefined}
                aria-describedby={props.reasonMissing ? `reason-error-${id}` : undefined}
                autoComplete="off"
                maxLength={4000}
              />
              {props.reasonMissing ? (
                <p id={`reason-error-${id}`} class="field-error" role="alert">
                  A reason is required to reject: it is sent to the consumer.
                </p>
              ) : null}
            </div>
            <div class="buttons">
              <button type="submit" class="danger">Reject</button>
              <button type="button" onClick={props.onCancelReject}>Cancel <kbd aria-hidden="true">Esc</kbd></button>
            </div>
          </form>
        ) : (
          <form
            class="actions"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              props.onAccept();
            }}
          >
            <div class="field">
              <label for={`note-${id}`}>Note <span class="muted">(optional, kept with the decision)</span></label>
              <input id={`note-${id}`} value={props.note} onInput={(e) => props.onNote(e.currentTarget.value)} autoComplete="off" maxLength={4000} />
            </div>
            <div class="buttons">
              <button type="submit" class="success" aria-keyshortcuts="a">
                {edited ? 'Accept edited' : 'Accept'} <kbd aria-hidden="true">a</kbd>
              </button>
              <button type="button" class="danger-outline" aria-keyshortcuts="r" onClick={props.onStartReject}>
                Reject… <kbd aria-hidden="true">r</kbd>
              </button>
              <button type="button" onClick={props.onStartReturn}>Send back…</button>
            </div>
          </form>
        )}
      </article>
    </li>
  );
}
