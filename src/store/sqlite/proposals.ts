import type Database from 'better-sqlite3';
import type { ChatRef, Decision, ProposalRecord } from '../../domain/records.js';
import type { ProposalRepository } from '../store.js';
import { byRequest } from '../row-records.js';
import { json, type Row, toProposal } from './rows.js';

function prepare(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insert: p(`INSERT INTO proposals (id, request_id, status, answer, structured, confidence, provenance, created_at)
        VALUES (@id, @request_id, @status, @answer, @structured, @confidence, @provenance, @created_at)`),
    get: p('SELECT * FROM proposals WHERE id = ?'),
    decide: p(`UPDATE proposals SET status = ?, decided_by = ?, note = ?, reason = ?, decided_at = ?
        WHERE id = ? AND status = 'pending'`),
    pending: p(`SELECT * FROM proposals WHERE status = 'pending' ORDER BY id`),
    oldestPending: p(`SELECT * FROM proposals WHERE status = 'pending' ORDER BY id LIMIT 1`),
    listFor: p('SELECT * FROM proposals WHERE request_id = ? ORDER BY created_at, id'),
    listForMany: p('SELECT * FROM proposals WHERE request_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, id'),
    returnedFor: p(`SELECT * FROM proposals WHERE request_id IN (SELECT value FROM json_each(?)) AND status = 'rejected' AND reason = 'returned'
        ORDER BY created_at, id`),
    revise: p(`UPDATE proposals SET answer = @answer, structured = @structured, original_answer = @original_answer,
        provenance = @provenance WHERE id = @id`),
    setReviewCard: p('INSERT OR REPLACE INTO review_cards (proposal_id, channel, ts) VALUES (?, ?, ?)'),
    reviewCard: p('SELECT channel, ts FROM review_cards WHERE proposal_id = ?'),
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
    this.stmts.insert.run({
      id: p.id,
      request_id: p.request_id,
      status: p.status,
      answer: p.answer,
      structured: json(p.structured),
      confidence: p.confidence,
      provenance: json(p.provenance),
      created_at: p.created_at,
    });
  }

  async get(id: string): Promise<ProposalRecord | undefined> {
    const row = this.stmts.get.get(id) as Row | undefined;
    return row && toProposal(row);
  }

  async decide(id: string, status: 'accepted' | 'rejected', d: Decision): Promise<boolean> {
    return this.stmts.decide.run(status, d.decided_by, d.note, d.reason, d.decided_at, id).changes === 1;
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

  async revise(id: string, r: Pick<ProposalRecord, 'answer' | 'structured' | 'original_answer' | 'provenance'>): Promise<void> {
    this.stmts.revise.run({ id, answer: r.answer, structured: json(r.structured), original_answer: r.original_answer, provenance: json(r.provenance) });
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
