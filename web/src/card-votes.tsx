import { dateTime, timeAgo } from './format.js';
import type { Proposal, Vote } from './wire.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What a vote says in a sentence: who, what, and their note or reason. */
function voteWords(vote: Vote): string {
  const said = vote.decision === 'accept' ? vote.note : vote.reason;
  return `${vote.decision === 'accept' ? 'accepted' : 'rejected'}${said ? `: “${said}”` : ''}`;
}

/**
 * A proposal's votes under a review rule that needs more than one person ("1 of 2 approvals"), and who
 * voted what and when. Nothing when one accept decides and nobody voted yet.
 */
export function CardVotes({ proposal, now }: { proposal: Proposal; now: number }) {
  const votes = proposal.votes ?? [];
  const needed = proposal.approvals_needed ?? 1;
  if (needed <= 1 && votes.length === 0) return null;
  const accepts = votes.filter((v) => v.decision === 'accept').length;
  const rejects = votes.length - accepts;
  return (
    <section class="votes" aria-label="Approvals">
      <p class="votes-count">
        <strong>{accepts} of {plural(needed, 'approval')}</strong>
        {rejects > 0 ? <span>, {plural(rejects, 'rejection')}</span> : null}
        {accepts < needed ? <span class="muted"> · waiting for {plural(needed - accepts, 'more reviewer')}</span> : null}
      </p>
      {proposal.may_vote && proposal.may_vote.length > 0 ? <p class="muted">May still vote: {proposal.may_vote.join(', ')}</p> : null}
      {votes.length === 0 ? (
        <p class="muted">No votes yet.</p>
      ) : (
        <ul class="vote-list">
          {votes.map((vote) => (
            <li key={`${vote.by} ${vote.at}`} class={`vote vote-${vote.decision}`}>
              <strong>{vote.by}</strong> {voteWords(vote)}{' '}
              <time class="muted" dateTime={vote.at} title={dateTime(vote.at)}>{timeAgo(vote.at, now)}</time>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
