import type { ChatRef, Decision, ProposalRecord } from '../../domain/records.js';
import { byRequest, json, toProposal } from '../row-records.js';
import type { ProposalRepository } from '../store.js';
import { all, type Db, one, run, write } from './sql.js';

/**
 * Proposals, their decisions and their review cards, in PostgreSQL. Inside a transaction `get` locks
 * the proposal's row: two instances deciding one proposal take turns, and the second reads it decided.
 */
export class PgProposals implements ProposalRepository {
  constructor(
    private readonly db: Db,
    private readonly locking: boolean,
  ) {}

  async insert(p: ProposalRecord): Promise<void> {
    await write(
      this.db,
      `INSERT INTO proposals (id, request_id, status, answer, structured, confidence, provenance, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [p.id, p.request_id, p.status, p.answer, json(p.structured), p.confidence, json(p.provenance), p.created_at],
    );
  }

  async get(id: string): Promise<ProposalRecord | undefined> {
    const row = await one(this.db, `SELECT * FROM proposals WHERE id = $1${this.locking ? ' FOR UPDATE' : ''}`, [id]);
    return row && toProposal(row);
  }

  async decide(id: string, status: 'accepted' | 'rejected', d: Decision): Promise<boolean> {
    const changed = await run(
      this.db,
      `UPDATE proposals SET status = $1, decided_by = $2, note = $3, reason = $4, decided_at = $5
        WHERE id = $6 AND status = 'pending'`,
      [status, d.decided_by, d.note, d.reason, d.decided_at, id],
    );
    return changed === 1;
  }

  async pending(): Promise<ProposalRecord[]> {
    return (await all(this.db, `SELECT * FROM proposals WHERE status = 'pending' ORDER BY id`)).map(toProposal);
  }

  async oldestPending(): Promise<ProposalRecord | undefined> {
    const row = await one(this.db, `SELECT * FROM proposals WHERE status = 'pending' ORDER BY id LIMIT 1`);
    return row && toProposal(row);
  }

  async listFor(requestId: string): Promise<ProposalRecord[]> {
    return (await all(this.db, 'SELECT * FROM proposals WHERE request_id = $1 ORDER BY created_at, id', [requestId])).map(toProposal);
  }

  async listForMany(requestIds: readonly string[]): Promise<Map<string, ProposalRecord[]>> {
    return byRequest((await all(this.db, 'SELECT * FROM proposals WHERE request_id = ANY($1::text[]) ORDER BY created_at, id', [requestIds])).map(toProposal));
  }

  async returnedFor(requestIds: readonly string[]): Promise<Map<string, ProposalRecord[]>> {
    const rows = await all(this.db, `SELECT * FROM proposals WHERE request_id = ANY($1::text[]) AND status = 'rejected' AND reason = 'returned'
      ORDER BY created_at, id`, [requestIds]);
    return byRequest(rows.map(toProposal));
  }

  async revise(id: string, r: Pick<ProposalRecord, 'answer' | 'structured' | 'original_answer' | 'provenance'>): Promise<void> {
    await write(
      this.db,
      'UPDATE proposals SET answer = $1, structured = $2, original_answer = $3, provenance = $4 WHERE id = $5',
      [r.answer, json(r.structured), r.original_answer, json(r.provenance), id],
    );
  }

  /** Posting a card again replaces where it is, as SQLite's INSERT OR REPLACE does (the overdue mark starts over). */
  async setReviewCard(proposalId: string, ref: ChatRef): Promise<void> {
    await write(
      this.db,
      `INSERT INTO review_cards (proposal_id, channel, ts) VALUES ($1, $2, $3)
        ON CONFLICT (proposal_id) DO UPDATE SET channel = excluded.channel, ts = excluded.ts, overdue = 0`,
      [proposalId, ref.channel, ref.ts],
    );
  }

  async reviewCard(proposalId: string): Promise<ChatRef | undefined> {
    return (await one(this.db, 'SELECT channel, ts FROM review_cards WHERE proposal_id = $1', [proposalId])) as ChatRef | undefined;
  }

  /**
   * One UPDATE both finds and marks the cards, so two instances running it at once never take one card
   * twice: the second waits for the first's row lock, then sees the card marked and leaves it.
   */
  async takeOverdueReviewCards(now: number): Promise<string[]> {
    const rows = await all(
      this.db,
      `WITH taken AS (
        UPDATE review_cards c SET overdue = 1 FROM proposals p, requests r
        WHERE p.id = c.proposal_id AND r.id = p.request_id AND c.overdue = 0 AND p.status = 'pending' AND r.give_up_at <= $1
        RETURNING c.proposal_id)
      SELECT proposal_id FROM taken ORDER BY proposal_id`,
      [now],
    );
    return rows.map((r) => r.proposal_id as string);
  }
}
