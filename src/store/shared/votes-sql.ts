import type { VoteRecord } from '../vote-repository.js';

/** The statements of review votes, the same in both engines (`?` placeholders: `pgText`). */
const COLUMNS = 'proposal_id, person, by_name, decision, note, reason, required, at';

export const VOTES = {
  list: `SELECT ${COLUMNS} FROM votes WHERE proposal_id = ? ORDER BY at, person`,
  /** A second vote by the same person on the same proposal is ignored (the key is the pair). */
  add: `INSERT INTO votes (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (proposal_id, person) DO NOTHING`,
  clear: 'DELETE FROM votes WHERE proposal_id = ?',
} as const;

/** The columns listed, for an engine's own read of many proposals' votes. */
export const VOTE_COLUMNS = COLUMNS;

/** A vote's values in the order of `VOTES.add`. */
export const voteValues = (v: VoteRecord) => [v.proposal_id, v.person, v.by, v.decision, v.note, v.reason, v.required ? 1 : 0, v.at];

/** A row of `votes` as a record. */
export function toVote(row: Record<string, unknown>): VoteRecord {
  return {
    proposal_id: row.proposal_id as string,
    by: row.by_name as string,
    person: row.person as string,
    decision: row.decision as VoteRecord['decision'],
    note: (row.note as string | null) ?? null,
    reason: (row.reason as string | null) ?? null,
    required: Number(row.required) === 1,
    at: Number(row.at),
  };
}
