import type Database from 'better-sqlite3';
import type { MessageRecord } from '../../domain/records.js';
import type { MessageLease, WorkClaim } from '../store.js';
import { json, messageText, parseJson, prepareAll, toMessage, type Row } from './rows.js';
import { MESSAGES, messageValues } from '../shared/messages-sql.js';
import { renewLeases, SQLITE_IN_JSON } from '../shared/leases-sql.js';

function prepare(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    ...prepareAll(db, MESSAGES),
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
    renew: p(renewLeases('messages', SQLITE_IN_JSON)),
  };
}

/** The outbox of messages to experts, leased to whoever sends them (half of `SqliteOutbox`). */
export class SqliteMessages {
  private readonly stmts: ReturnType<typeof prepare>;

  constructor(db: Database.Database) {
    this.stmts = prepare(db);
  }

  enqueue(m: MessageRecord, lease?: MessageLease): void {
    this.stmts.enqueue.run(...messageValues(m, messageText(m), lease));
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
    return this.stmts.renew.run(leaseUntil, json(ids), owner).changes;
  }
}
