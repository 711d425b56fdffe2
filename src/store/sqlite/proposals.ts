import type Database from 'better-sqlite3';
import type { ChatRef, Decision, ProposalRecord } from '../../domain/records.js';
import type { ProposalRepository } from '../store.js';
import { byRequest } from '../row-records.js';
import { type Row, toProposal, prepareAll } from './rows.js';
import { decisionValues, PROPOSALS, proposalValues, revisionValues, type Revision } from '../shared/proposals-sql.js';

function prepare(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    ...prepareAll(db, PROPOSALS),
    listForMany: p('SELECT * FROM proposals WHERE request_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, id'),
    returnedFor: p(`SELECT * FROM proposals WHERE request_id IN (SELECT value FROM json_each(?)) AND status = 'rejected' AND reason = 'returned'
        ORDER BY created_at, id`),
    overdueCards: p(`SELECT c.proposal_id FROM review_cards c JOIN proposals p ON p.id = c.proposal_id
        JOIN requests r ON r.id = p.request_id WHERE c.overdue = 0 AND p.status = 'pending' AND r.give_up_at <= ?`),
    markOverdue: p('UPDATE review_cards SET overdue = 1 WHERE proposal_id = ?'),
  };
}

/** Proposals, their decisions and their review cards, in SQLite. */
export class SqliteProposals implements ProposalRepository {
  private readonly stmts: ReturnType<typeof prepare>;

  constructor(db: Database.Database) {
    this.stmts = prepare(db);
  }

  async insert(p: ProposalRecord): Promise<void> {
    this.stmts.insert.run(...proposalValues(p));
  }

  async get(id: string): Promise<ProposalRecord | undefined> {
    const row = this.stmts.get.get(id) as Row | undefined;
    return row && toProposal(row);
  }

  async decide(id: string, status: 'accepted' | 'rejected', d: Decision): Promise<boolean> {
    return this.stmts.decide.run(...decisionValues(id, status, d)).changes === 1;
  }

  async pending(): Promise<ProposalRecord[]> {
    return (this.stmts.pending.all() as Row[]).map(toProposal);
  }

  async oldestPending(): Promise<ProposalRecord | undefined> {
    const row = this.stmts.oldestPending.get() as Row | undefined;
    return row && toProposal(row);
  }

  async listFor(requestId: string): Promise<ProposalRecord[]> {
    return (this.stmts.listFor.all(requestId) as Row[]).map(toProposal);
  }

  async listForMany(requestIds: readonly string[]): Promise<Map<string, ProposalRecord[]>> {
    return byRequest((this.stmts.listForMany.all(JSON.stringify(requestIds)) as Row[]).map(toProposal));
  }

  async returnedFor(requestIds: readonly string[]): Promise<Map<string, ProposalRecord[]>> {
    return byRequest((this.stmts.returnedFor.all(JSON.stringify(requestIds)) as Row[]).map(toProposal));
  }

  async revise(id: string, r: Revision): Promise<void> {
    this.stmts.revise.run(...revisionValues(id, r));
  }

  async setReviewCard(proposalId: string, ref: ChatRef): Promise<void> {
    this.stmts.setReviewCard.run(proposalId, ref.channel, ref.ts);
  }

  async reviewCard(proposalId: string): Promise<ChatRef | undefined> {
    return this.stmts.reviewCard.get(proposalId) as ChatRef | undefined;
  }

  async takeOverdueReviewCards(now: number): Promise<string[]> {
    const ids = (this.stmts.overdueCards.all(now) as Row[]).map((r) => r.proposal_id as string);
    for (const id of ids) this.stmts.markOverdue.run(id);
    return ids;
  }
}
