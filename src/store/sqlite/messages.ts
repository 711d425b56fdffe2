import type Database from 'better-sqlite3';
import type { MessageRecord } from '../../domain/records.js';
import type { MessageLease, WorkClaim } from '../store.js';
import { json, messageText, parseJson, toMessage, type Row } from './rows.js';

function prepare(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    enqueue: p(`INSERT INTO messages (id, expert_id, request_id, ask_id, proposal_id, purpose, text, elements, state,
        attempts, next_attempt_at, created_at, claimed_by, lease_until) VALUES (@id, @expert_id, @request_id, @ask_id, @proposal_id,
        @purpose, @text, @elements, @state, @attempts, @next_attempt_at, @created_at, @claimed_by, @lease_until)`),
    listFor: p(`SELECT id, expert_id, request_id, ask_id, proposal_id, purpose, text, elements, state, attempts,
      next_attempt_at, created_at, sent_at, last_error FROM messages WHERE request_id = ? ORDER BY created_at, id`),
    askElements: p(`SELECT elements FROM messages WHERE ask_id = ? AND purpose = 'ask' ORDER BY created_at DESC, id DESC LIMIT 1`),
    anyDue: p(`SELECT EXISTS (SELECT 1 FROM messages INDEXED BY messages_due WHERE state = 'pending'
        AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until <= @now)) AS due`),
    claim: p(`UPDATE messages SET claimed_by = @owner, lease_until = @leaseUntil WHERE id IN (
          SELECT id FROM messages INDEXED BY messages_due WHERE state = 'pending' AND next_attempt_at <= @now
            AND (lease_until IS NULL OR lease_until <= @now) ORDER BY next_attempt_at, id LIMIT @limit)
        RETURNING *`),
    markSent: p(`UPDATE messages SET state = 'sent', sent_at = ?, attempts = attempts + 1, claimed_by = NULL,
        lease_until = NULL WHERE id = ? AND state = 'pending'`),
    reschedule: p(`UPDATE messages SET state = CASE WHEN @next IS NULL THEN 'dead' ELSE 'pending' END,
        next_attempt_at = COALESCE(@next, next_attempt_at), last_error = @error, attempts = attempts + 1, claimed_by = NULL,
        lease_until = NULL WHERE id = @id AND state = 'pending' AND claimed_by = @owner`),
    drop: p(`UPDATE messages SET state = 'dropped', last_error = ?, claimed_by = NULL, lease_until = NULL
        WHERE id = ? AND state = 'pending'`),
    renew: p(`UPDATE messages SET lease_until = @leaseUntil WHERE id IN (SELECT value FROM json_each(@ids))
        AND state = 'pending' AND claimed_by = @owner`),
  };
}

/** The outbox of messages to experts, leased to whoever sends them (half of `SqliteOutbox`). */
export class SqliteMessages {
  private readonly stmts: ReturnType<typeof prepare>;

  constructor(db: Database.Database) {
    this.stmts = prepare(db);
  }

  enqueue(m: MessageRecord, lease?: MessageLease): void {
    this.stmts.enqueue.run({
      ...m,
      proposal_id: m.proposal_id ?? null,
      text: messageText(m),
      elements: m.elements === null ? null : json(m.elements),
      claimed_by: lease?.owner ?? null,
      lease_until: lease?.leaseUntil ?? null,
    });
  }

  listFor(requestId: string): MessageRecord[] {
    return (this.stmts.listFor.all(requestId) as Row[]).map(toMessage);
  }

  askElements(askId: string): string[] | null {
    const row = this.stmts.askElements.get(askId) as Row | undefined;
    return row ? (parseJson(row.elements) as string[] | null) : null;
  }

  anyDue(now: number): boolean {
    return (this.stmts.anyDue.get({ now }) as { due: number }).due === 1;
  }

  claim(c: WorkClaim): MessageRecord[] {
    // Woken after every commit, the dispatcher mostly finds nothing due: a read answers that without a write.
    if (!this.anyDue(c.now)) return [];
    return (this.stmts.claim.all({ now: c.now, owner: c.owner, leaseUntil: c.leaseUntil, limit: c.limit }) as Row[])
      .map(toMessage)
      .sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.id < b.id ? -1 : 1));
  }

  markSent(ids: readonly string[], at: number): void {
    for (const id of ids) this.stmts.markSent.run(at, id);
  }

  reschedule(id: string, owner: string, error: string, nextAttemptAt: number | null): boolean {
    return this.stmts.reschedule.run({ id, owner, error, next: nextAttemptAt }).changes === 1;
  }

  drop(id: string, why: string): void {
    this.stmts.drop.run(why, id);
  }

  renewLeases(ids: readonly string[], owner: string, leaseUntil: number): number {
    return this.stmts.renew.run({ ids: json(ids), owner, leaseUntil }).changes;
  }
}
