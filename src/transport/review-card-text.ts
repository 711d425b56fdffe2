import type { ReviewCard } from './transport.js';

/** `text` cut to `max` characters, ending with `…` when cut. */
export const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** One line that says what became of a decided proposal (every review channel shows it the same way). */
export function decisionLine(card: ReviewCard): string | null {
  const d = card.decision;
  if (!d) return null;
  const at = d.at.replace('T', ' ').replace(/:\d\d\.\d{3}Z$/, ' UTC');
  const detail = d.detail ? `: ${d.detail}` : '';
  switch (d.outcome) {
    case 'accepted':
      return `Accepted by ${d.by} at ${at}${detail}`;
    case 'rejected':
      return `Rejected by ${d.by} at ${at}${detail}`;
    case 'returned':
      return `Sent back to ${card.expertName} by ${d.by} at ${at}${detail}`;
    case 'withdrawn':
      return `Withdrawn at ${at}${detail}`;
  }
}

/**
 * Where the vote stands on a proposal a review rule governs, in one or two lines (every review message
 * shows them the same way): "1 of 2 approvals under the review rule "security": Alice accepted.", then,
 * while it waits, who may still vote. None for a proposal no rule covers.
 */
export function votesLines(card: ReviewCard): string[] {
  const r = card.review;
  if (!r) return [];
  const accepts = r.votes.filter((v) => v.decision === 'accept').length;
  const who = r.votes.map((v) => `${v.by} ${v.decision === 'accept' ? 'accepted' : 'rejected'}`).join(', ');
  const lines = [`${accepts} of ${r.approvalsNeeded} approval${r.approvalsNeeded === 1 ? '' : 's'} under the review rule "${r.rule}": ${who || 'no votes yet'}.`];
  if (!card.decision && r.stillToVote.length > 0) lines.push(`May still vote: ${r.stillToVote.join(', ')}.`);
  return lines;
}
