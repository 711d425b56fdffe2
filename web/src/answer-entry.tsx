import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { CopyId } from './copy-id.js';
import { dateTime } from './format.js';
import type { Answer } from './wire.js';

/** A search score for the eye: enough digits to tell neighbours apart, no more. */
export function scoreText(score: number): string {
  return score >= 10 ? score.toFixed(1) : score.toFixed(2);
}

/**
 * One library entry: the question and the answer, from whom, when last verified (stale ones marked),
 * how often reused; with `onRetire`, a "Retire…" step that needs a reason before anything is sent.
 */
export function AnswerEntry(props: { entry: Answer; rank: number | null; onRetire: ((reason: string) => Promise<boolean>) | null }) {
  const { entry: a } = props;
  const [retiring, setRetiring] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const titleId = `answer-${a.id}`;

  useLayoutEffect(() => {
    if (retiring) field.current?.focus();
  }, [retiring]);

  const cancel = () => {
    setRetiring(false);
    setReason('');
    setError(null);
    // Back to the button that opened the step, so the keyboard stays where it was.
    requestAnimationFrame(() => opener.current?.focus());
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!reason.trim()) return setError('Say why it must not be offered again: the reason is kept with the entry.');
    setBusy(true);
    try {
      if (await props.onRetire!(reason.trim())) setRetiring(false);
    } finally {
      setBusy(false);
    }
  };

  return (
    <li class="card answer-entry" aria-labelledby={titleId}>
      <div class="proposal-head">
        {props.rank !== null ? <span class="muted">#{props.rank}</span> : null}
        <span class="chip">{a.topic}</span>
        {a.status !== 'active' ? <span class={`status status-${a.status}`}>{a.status}</span> : null}
        {a.score !== undefined ? <span class="position" title="Relevance to the search words: higher is better">score {scoreText(a.score)}</span> : null}
      </div>
      <h2 id={titleId} class="question">{a.question}</h2>
      <div class="answer">
        <p class="answer-by"><strong>{a.expert_name}</strong> answered</p>
        <p class="answer-text">{a.answer}</p>
      </div>
      <dl class="facts">
        <div class="fact">
          <dt>Verified</dt>
          <dd>
            <time dateTime={a.verified_at}>{dateTime(a.verified_at)}</time>
            {a.status === 'stale' ? <span class="tag">stale: not offered until verified again</span> : null}
          </dd>
        </div>
        <div class="fact">
          <dt>Reused</dt>
          <dd>{a.reuse_count === 1 ? 'once' : `${a.reuse_count} times`}</dd>
        </div>
        <div class="fact">
          <dt>From</dt>
          <dd>{a.request_id ? <a href={`#/requests/${encodeURIComponent(a.request_id)}`}>its request</a> : `curated by ${a.accepted_by}`}</dd>
        </div>
        {a.retired ? (
          <div class="fact">
            <dt>Retired</dt>
            <dd>by {a.retired.by}, <time dateTime={a.retired.at}>{dateTime(a.retired.at)}</time>: {a.retired.reason}</dd>
          </div>
        ) : null}
      </dl>
      <div class="ids"><CopyId id={a.id} label="answer id" /></div>
      {props.onRetire && a.status !== 'retired' ? (
        retiring ? (
          <form class="actions" onSubmit={submit} onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), cancel())} noValidate>
            <div class="field">
              <label for={`retire-${a.id}`}>Why retire it? <span class="muted">(it is never offered again)</span></label>
              <input
                id={`retire-${a.id}`}
                ref={field}
                maxLength={2000}
                value={reason}
                onInput={(e) => {
                  setReason(e.currentTarget.value);
                  setError(null);
                }}
                aria-invalid={error ? 'true' : undefined}
                aria-describedby={error ? `retire-error-${a.id}` : undefined}
              />
            </div>
            <div class="buttons">
              <button type="submit" class="danger" disabled={busy}>Retire</button>
              <button type="button" onClick={cancel}>Cancel</button>
            </div>
            {error ? <p id={`retire-error-${a.id}`} class="field-error" role="alert">{error}</p> : null}
          </form>
        ) : (
          <div class="buttons">
            <button type="button" class="small danger-outline" ref={opener} onClick={() => setRetiring(true)} aria-label={`Retire “${a.question}”…`}>
              Retire…
            </button>
          </div>
        )
      ) : null}
    </li>
  );
}
