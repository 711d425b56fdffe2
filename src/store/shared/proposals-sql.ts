import type { Decision, ProposalRecord } from '../../domain/records.js';
import { json } from '../row-records.js';

/**
 * The statements of proposals and review cards, the same in both engines (`?` placeholders:
 * `pgText`). Engine-specific: a list of ids as one value (SQLite `json_each`, PostgreSQL arrays), the
 * row lock of `get` in a PostgreSQL transaction, and taking overdue cards (one UPDATE … RETURNING there).
 */
export const PROPOSALS = {
  insert: `INSERT INTO proposals (id, request_id, status, answer, structured, confidence, provenance, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  get: 'SELECT * FROM proposals WHERE id = ?',
  decide: `UPDATE proposals SET status = ?, decided_by = ?, note = ?, reason = ?, decided_at = ?
        WHERE id = ? AND status = 'pending'`,
  pending: `SELECT * FROM proposals WHERE status = 'pending' ORDER BY id`,
  oldestPending: `SELECT * FROM proposals WHERE status = 'pending' ORDER BY id LIMIT 1`,
  listFor: 'SELECT * FROM proposals WHERE request_id = ? ORDER BY created_at, id',
  revise: 'UPDATE proposals SET answer = ?, structured = ?, original_answer = ?, provenance = ? WHERE id = ?',
  /** Posting a card again replaces where it is (the overdue mark starts over). */
  setReviewCard: `INSERT INTO review_cards (proposal_id, channel, ts) VALUES (?, ?, ?)
        ON CONFLICT (proposal_id) DO UPDATE SET channel = excluded.channel, ts = excluded.ts, overdue = 0`,
  reviewCard: 'SELECT channel, ts FROM review_cards WHERE proposal_id = ?',
} as const;

export type Revision = Pick<ProposalRecord, 'answer' | 'structured' | 'original_answer' | 'provenance'>;

/** The values of `PROPOSALS.insert`, `decide` and `revise`, in their order. */
export const proposalValues = (p: ProposalRecord) => [p.id, p.request_id, p.status, p.answer, json(p.structured), p.confidence, json(p.provenance), p.created_at];
export const decisionValues = (id: string, status: 'accepted' | 'rejected', d: Decision) => [status, d.decided_by, d.note, d.reason, d.decided_at, id];
export const revisionValues = (id: string, r: Revision) => [r.answer, json(r.structured), r.original_answer, json(r.provenance), id];
