import type { Proposal } from './wire.js';

/** A date in the viewer's zone without the time ("Aug 1, 2026"): when a library entry was last confirmed. */
function day(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
}

/**
 * Where a proposal's answer comes from when it is not a new answer: an entry of the answer library
 * offered instead of asking anyone (who answered it, when it was last confirmed, how close the
 * questions are, and the question it first answered, to compare with this one), or an expert's `same`
 * confirming an entry due for checking. Nothing for an ordinary answer.
 */
export function LibrarySource({ proposal, question }: { proposal: Proposal; question: string }) {
  const p = proposal.provenance;
  if (p.reused_from !== undefined) {
    return (
      <section class="library-source" aria-label="From the library">
        <p>
          <strong>From the library</strong>: answered by <strong>{p.expert_name}</strong>
          {p.verified_at ? `, verified ${day(p.verified_at)}` : ''}
          {proposal.confidence !== null ? `, score ${proposal.confidence.toFixed(2)}` : ''}. No expert was asked.
        </p>
        <dl class="compare">
          <div>
            <dt>Asked now</dt>
            <dd>{question}</dd>
          </div>
          <div>
            <dt>Originally answered</dt>
            <dd>{p.original_question ?? '(question not recorded)'}</dd>
          </div>
        </dl>
        <p class="muted">Send back if it does not answer this question: an expert is asked instead.</p>
      </section>
    );
  }
  if (p.refreshes !== undefined) {
    return (
      <section class="library-source" aria-label="Confirms a library answer">
        <p>
          <strong>Confirms a library answer</strong>: {p.expert_name} was shown the answer in the library ({p.refreshes}) and replied
          that it still holds. Accepting marks that entry verified today instead of adding a new one.
        </p>
      </section>
    );
  }
  return null;
}
