/** A proposal's votes as reviewers read them (the wire form: votes, approvals needed, who may still vote). */
export interface VotedProposal {
  votes?: ReadonlyArray<{ by: string; decision: 'accept' | 'reject'; reason: string | null }> | undefined;
  approvals_needed?: number | undefined;
  may_vote?: readonly string[] | undefined;
}

/** Where a vote stands, for a one-line summary; null when one accept decides and nobody voted yet. */
export interface VoteStanding {
  accepts: number;
  needed: number;
  votes: NonNullable<VotedProposal['votes']>;
  /** "; may still vote: A, B", ready to append, or '' when the rule names nobody who has not voted. */
  mayStillVote: string;
}

export function voteStanding(p: VotedProposal): VoteStanding | null {
  const votes = p.votes ?? [];
  const needed = p.approvals_needed ?? 1;
  if (votes.length === 0 && needed <= 1) return null;
  const still = p.may_vote ?? [];
  return {
    accepts: votes.filter((v) => v.decision === 'accept').length,
    needed,
    votes,
    mayStillVote: still.length > 0 ? `; may still vote: ${still.join(', ')}` : '',
  };
}
