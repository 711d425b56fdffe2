import type { ProposalBody } from './wire.js';

/**
 * Where the vote on a pending proposal stands, for the queue: "Votes: 1/2 approvals (Sec One
 * accepted)". Null when nobody voted and one accept decides (no review rule, or a rule of one).
 */
export function votesLine(p: Pick<ProposalBody, 'votes' | 'approvals_needed' | 'may_vote'>): string | null {
  const votes = p.votes ?? [];
  const needed = p.approvals_needed ?? 1;
  if (votes.length === 0 && needed <= 1) return null;
  const accepts = votes.filter((v) => v.decision === 'accept').length;
  const who = votes.map((v) => (v.decision === 'accept' ? `${v.by} accepted` : `${v.by} rejected${v.reason ? `: ${v.reason}` : ''}`));
  const still = p.may_vote && p.may_vote.length > 0 ? `; may still vote: ${p.may_vote.join(', ')}` : '';
  return `Votes: ${accepts}/${needed} approvals (${who.length > 0 ? who.join(', ') : 'none yet'})${still}`;
}
