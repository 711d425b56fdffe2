/**
 * One reviewer's vote on a pending proposal that a review rule covers (more than one person must
 * agree, or one of a required set). A person votes once per proposal: `person` is the key that makes
 * their identities (an address, a Slack and a Teams id) one voter.
 */
export interface VoteRecord {
  proposal_id: string;
  /** The voter as a decision records them (`decided_by`). */
  by: string;
  /** Who the voter is, whichever identity they voted with. */
  person: string;
  decision: 'accept' | 'reject';
  note: string | null;
  reason: string | null;
  /** Whether the voter is one of the rule's `require` (an accept from one is needed). */
  required: boolean;
  at: number;
}

export interface VoteReads {
  /** A proposal's votes, in the order they were cast. */
  list(proposalId: string): Promise<VoteRecord[]>;
  /** The votes of each of `proposalIds`, in one read (a proposal with none is absent). */
  listMany(proposalIds: readonly string[]): Promise<Map<string, VoteRecord[]>>;
}

export interface VoteRepository extends VoteReads {
  /** Records a vote; false, and nothing changes, when this person has already voted on the proposal. */
  add(vote: VoteRecord): Promise<boolean>;
  /** Removes a proposal's votes (its text was edited, or it was sent back); how many. */
  clear(proposalId: string): Promise<number>;
}
