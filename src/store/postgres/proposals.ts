import type { ChatRef, Decision, ProposalRecord } from '../../domain/records.js';
import { byRequest, toProposal } from '../row-records.js';
import { pgStatements } from '../shared/placeholders.js';
import { decisionValues, PROPOSALS, proposalValues, revisionValues, type Revision } from '../shared/proposals-sql.js';
import type { ProposalRepository } from '../store.js';
import { all, type Db, one, run, write } from './sql.js';

const SQL = pgStatements(PROPOSALS);
const GET_LOCKED = `${SQL.get} FOR UPDATE`;

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
    await write(this.db, SQL.insert, proposalValues(p));
  }

  async get(id: string): Promise<ProposalRecord | undefined> {
    const row = await one(this.db, this.locking ? GET_LOCKED : SQL.get, [id]);
    return row && toProposal(row);
  }

  async decide(id: string, status: 'accepted' | 'rejected', d: Decision): Promise<boolean> {
    return (await run(this.db, SQL.decide, decisionValues(id, status, d))) === 1;
  }

  async pending(): Promise<ProposalRecord[]> {
    return (await all(this.db, SQL.pending)).map(toProposal);
  }

  async oldestPending(): Promise<ProposalRecord | undefined> {
    const row = await one(this.db, SQL.oldestPending);
    return row && toProposal(row);
  }

  async listFor(requestId: string): Promise<ProposalRecord[]> {
    return (await all(this.db, SQL.listFor, [requestId])).map(toProposal);
  }

  async listForMany(requestIds: readonly string[]): Promise<Map<string, ProposalRecord[]>> {
    return byRequest((await all(this.db, 'SELECT * FROM proposals WHERE request_id = ANY($1::text[]) ORDER BY created_at, id', [requestIds])).map(toProposal));
  }

  async returnedFor(requestIds: readonly string[]): Promise<Map<string, ProposalRecord[]>> {
    const rows = await all(this.db, `SELECT * FROM proposals WHERE request_id = ANY($1::text[]) AND status = 'rejected' AND reason = 'returned'
      ORDER BY created_at, id`, [requestIds]);
    return byRequest(rows.map(toProposal));
  }

  async revise(id: string, r: Revision): Promise<void> {
    await write(this.db, SQL.revise, revisionValues(id, r));
  }

  async setReviewCard(proposalId: string, ref: ChatRef): Promise<void> {
    await write(this.db, SQL.setReviewCard, [proposalId, ref.channel, ref.ts]);
  }

  async reviewCard(proposalId: string): Promise<ChatRef | undefined> {
    return (await one(this.db, SQL.reviewCard, [proposalId])) as ChatRef | undefined;
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
