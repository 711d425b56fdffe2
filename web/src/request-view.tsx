import { channelPhrase } from '../../src/wire/channel-phrase.js';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, Unauthorized, type Api } from './api.js';
import { auditSentence } from './audit-words.js';
import { CopyId } from './copy-id.js';
import { dateTime, draftedQuestion } from './format.js';
import { useNow } from './hooks.js';
import { waitingText } from './waiting-text.js';
import type { AuditEntry, Expert, Proposal, RequestRecord } from './wire.js';

interface Loaded {
  request: RequestRecord;
  audit: AuditEntry[];
  proposal: Proposal | null;
  names: Map<string, string>;
}

/** One request: its state, asks, proposal and decision, and its audit trail in order. */
export function RequestView(props: { api: Api; id: string; onUnauthorized: () => void }) {
  const { api, id, onUnauthorized } = props;
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const now = useNow();

  useEffect(() => {
    let live = true;
    setError(null);
    (async () => {
      const [request, audit, experts] = await Promise.all([api.request(id), api.audit(id), api.experts().catch((): Expert[] => [])]);
      // With an LLM the request names its proposal as soon as the answer arrives; the proposal exists
      // once structuring ends (404 until then).
      const proposal = request.proposal_id
        ? await api.proposal(request.proposal_id).catch((e: unknown) => {
            if (e instanceof ApiError && e.status === 404) return null;
            throw e;
          })
        : null;
      if (live) setData({ request, audit, proposal, names: new Map(experts.map((e) => [e.id, e.name])) });
    })().catch((e: unknown) => {
      if (e instanceof Unauthorized) return onUnauthorized();
      if (live) setError(e instanceof Error ? e.message : String(e));
    });
    return () => {
      live = false;
    };
  }, [api, id, version]);

  useEffect(() => {
    document.getElementById('request-title')?.focus();
  }, [data?.request.id]);

  const back = (
    <span class="back-links">
      <a class="back" href="#/">← Queue</a>
      <a class="back" href="#/requests">All requests</a>
    </span>
  );
  if (error) {
    return (
      <section aria-labelledby="request-title">
        {back}
        <h1 id="request-title" tabIndex={-1}>Request {id}</h1>
        <p class="alert" role="alert">{error}</p>
      </section>
    );
  }
  if (!data) return <section aria-busy="true">{back}<p class="muted">Loading request…</p></section>;

  const { request, audit, proposal, names } = data;
  const name = (expertId: string) => names.get(expertId) ?? expertId;
  const waits = waitingText({ ...request, proposal }, { now, name });
  return (
    <section class="request-view" aria-labelledby="request-title">
      <div class="crumbs">
        {back}
        <button type="button" class="small" onClick={() => setVersion((v) => v + 1)}>Refresh</button>
      </div>
      <div class="card">
        <p class="request-status">
          <span class={`status status-${request.status}`}>{request.status}</span>
          <span class="chip">{request.topic}</span>
          <CopyId id={request.id} label="request id" />
        </p>
        <h1 id="request-title" class="question" tabIndex={-1}>{request.question}</h1>
        {waits.waiting || waits.givesUp ? (
          <p class="waiting-note">
            {waits.waiting ? <span class="waiting-why" title={request.waiting?.until ? dateTime(request.waiting.until) : undefined}>{waits.waiting}.</span> : null}
            {waits.givesUp && request.gives_up_at ? <> <time class="muted" dateTime={request.gives_up_at} title={dateTime(request.gives_up_at)}>{waits.givesUp}.</time></> : null}
          </p>
        ) : null}
        <dl class="details">
          {request.asked_question === null ? (
            <>
              <dt>Asked the expert as</dt>
              <dd class="muted">being drafted…</dd>
            </>
          ) : draftedQuestion(request) ? (
            <>
              <dt>Asked the expert as</dt>
              <dd>{request.asked_question}</dd>
            </>
          ) : null}
          <dt>Asked because</dt>
          <dd>{String(request.context.asked_because ?? '—')}</dd>
          <dt>Consumer</dt>
          <dd>{request.consumer_id}</dd>
          <dt>Kind</dt>
          <dd>{request.kind}</dd>
          <dt>Submitted</dt>
          <dd><time dateTime={request.created_at}>{dateTime(request.created_at)}</time></dd>
          <dt>Last change</dt>
          <dd><time dateTime={request.updated_at}>{dateTime(request.updated_at)}</time></dd>
          {request.reason ? (
            <>
              <dt>Failure</dt>
              <dd>{request.reason.code}: {request.reason.message}</dd>
            </>
          ) : null}
          <dt>Subscribers</dt>
          <dd>{request.subscribers.length ? request.subscribers.join(', ') : 'none registered'}</dd>
          <dt>Asks</dt>
          <dd>
            {request.asks.length === 0 ? 'none yet' : (
              <ul class="plain">
                {request.asks.map((ask) => (
                  <li key={ask.id}>
                    {name(ask.expert_id)}: <span class="state">{ask.state}</span>
                    {ask.sent_at ? <> · sent{channelPhrase(ask.channel)} <time dateTime={ask.sent_at}>{dateTime(ask.sent_at)}</time></> : ' · not sent yet'}
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </dl>
      </div>

      <RequestProposal request={request} proposal={proposal} />

      <div class="card">
        <h2 id="trail-title">Audit trail</h2>
        <ol class="timeline" aria-labelledby="trail-title">
          {audit.map((entry, index) => (
            <li key={index} class={`event event-${entry.type}`}>
              <time dateTime={entry.at}>{dateTime(entry.at)}</time>
              <div>
                <p class="event-text">{auditSentence(entry, name)}</p>
                <details class="event-raw">
                  <summary>Recorded as <code>{entry.type}</code> by <code>{entry.actor}</code></summary>
                  <pre>{JSON.stringify(entry.data, null, 2)}</pre>
                </details>
              </div>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}

/** The request's proposal and its decision, or word that it is still being structured. */
function RequestProposal({ request, proposal }: { request: RequestRecord; proposal: Proposal | null }) {
  return (
    <>
      {request.proposal_id && !proposal ? (
        <div class="card">
          <h2>Proposal</h2>
          <p class="muted">The answer arrived and is being structured; the proposal appears here when that ends.</p>
        </div>
      ) : null}

      {proposal ? (
        <div class="card">
          <h2>Proposal <span class={`status status-${proposal.status}`}>{proposal.status}</span></h2>
          <p class="ids"><CopyId id={proposal.id} label="proposal id" /></p>
          <p class="answer-by">Answer from <strong>{proposal.provenance.expert_name}</strong></p>
          <blockquote class="answer-text">{proposal.answer}</blockquote>
          {proposal.decision ? (
            <p class="decision">
              {proposal.status === 'accepted' ? 'Accepted' : 'Rejected'} by <strong>{proposal.decision.decided_by}</strong>{' '}
              <time dateTime={proposal.decision.decided_at}>{dateTime(proposal.decision.decided_at)}</time>
              {proposal.decision.reason ? <> · reason: {proposal.decision.reason}</> : null}
              {proposal.decision.note ? <> · note: {proposal.decision.note}</> : null}
            </p>
          ) : (
            <p class="muted">Waiting for review: decide it from the <a href="#/">queue</a>.</p>
          )}
        </div>
      ) : null}
    </>
  );
}
