import { CopyId } from './copy-id.js';
import { confidenceText, dateTime, draftedQuestion, structuredText, timeAgo } from './format.js';
import { LibrarySource } from './library-source.js';
import type { QueueItem } from './wire.js';

/** What was asked, by whom, when and why: the top of a proposal card. */
export function ProposalHead(props: { item: QueueItem; position: string; now: number; questionId: string }) {
  const { proposal, request } = props.item;
  const drafted = draftedQuestion(request);
  return (
    <>
      <header class="proposal-head">
        <span class="chip" title="Topic">{request.topic}</span>
        <span class="asker">
          <span class="sr-only">Requested by </span>
          <span aria-hidden="true">from </span>
          <strong>{request.consumer_id}</strong>
        </span>
        <time dateTime={proposal.created_at} title={dateTime(proposal.created_at)}>
          <span class="sr-only">arrived </span>
          {timeAgo(proposal.created_at, props.now)}
        </time>
        <span class="position">{props.position}</span>
      </header>
      <p class="ids">
        <span>Proposal <CopyId id={proposal.id} label="proposal id" /></span>
        <span>
          <a href={`#/requests/${encodeURIComponent(request.id)}`} title="The request's details and audit trail">Request</a>{' '}
          <CopyId id={request.id} label="request id" />
        </span>
      </p>

      <h2 id={props.questionId} class="question">{request.question}</h2>
      {drafted ? (
        <p class="asked-as">
          <span class="label">Asked the expert as</span> {drafted}
        </p>
      ) : null}
      <p class="because">
        <span class="label">Asked because</span> {request.asked_because ?? '(no reason given)'}
      </p>

      <LibrarySource proposal={proposal} question={request.question} />
    </>
  );
}

/** Answers to this request that reviewers sent back, each with the instructions it went back with. */
export function EarlierAnswers({ history }: { history: QueueItem['history'] }) {
  if (history.length === 0) return null;
  return (
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
  );
}

/** The structured form, the confidence and the way to the request's trail. */
export function ProposalFacts({ item, verbatim }: { item: QueueItem; verbatim: boolean }) {
  const { proposal, request } = item;
  return (
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
  );
}
