import { voteStanding, type VotedProposal } from '../core/vote-standing.js';

/**
 * Where the vote on a pending proposal stands, for the queue: "Votes: 1/2 approvals (Sec One
 * accepted); may still vote: …". Null when nobody voted and one accept decides (no review rule, or a rule of one).
 */
export function votesLine(p: VotedProposal): string | null {
  const s = voteStanding(p);
  if (!s) return null;
  const who = s.votes.map((v) => (v.decision === 'accept' ? `${v.by} accepted` : `${v.by} rejected${v.reason ? `: ${v.reason}` : ''}`));
  return `Votes: ${s.accepts}/${s.needed} approvals (${who.length > 0 ? who.join(', ') : 'none yet'})${s.mayStillVote}`;
}
