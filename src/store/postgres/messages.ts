import type { MessageRecord } from '../../domain/records.js';
import { messageText, parseJson, toMessage } from '../row-records.js';
import { pgStatements, pgText } from '../shared/placeholders.js';
import { renewLeases } from '../shared/leases-sql.js';
import { MESSAGE_COLUMNS, MESSAGES, messageValues } from '../shared/messages-sql.js';
import type { MessageLease, WorkClaim } from '../store.js';
import { all, type Db, one, PG_IN_ARRAY, run, write } from './sql.js';
import type { OlderInstances } from './generation.js';

const SQL = pgStatements(MESSAGES);

/** The conditions of a due, unleased message at `$1`, word for word those of the partial index `messages_due`. */
const DUE = `state = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)`;

/** The outbox of messages to experts, leased to whoever sends them (half of `PgOutbox`). */
export class PgMessages {
  /** `older`: whether an instance of an earlier storage generation may be serving (null: assume one may). */
  constructor(
    private readonly db: Db,
    private readonly older: OlderInstances | null = null,
  ) {}

  async enqueue(m: MessageRecord, lease?: MessageLease): Promise<void> {
    await write(this.db, SQL.enqueue, messageValues(m, this.older?.mayServe !== false ? m.text : messageText(m), lease));
  }

  async listFor(requestId: string): Promise<MessageRecord[]> {
    return (await all(this.db, SQL.listFor, [requestId])).map(toMessage);
  }

  async askElements(askId: string): Promise<string[] | null> {
    const row = await one(this.db, SQL.askElements, [askId]);
    return row ? (parseJson(row.elements) as string[] | null) : null;
  }

  async anyDue(now: number): Promise<boolean> {
    const row = await one(this.db, `SELECT EXISTS (SELECT 1 FROM messages WHERE ${DUE}) AS due`, [now]);
    return row?.due === true;
  }

  async claim(c: WorkClaim): Promise<MessageRecord[]> {
    // Woken after every commit, the dispatcher mostly finds nothing due: a read answers that without a write.
    if (!(await this.anyDue(c.now))) return [];
    // SKIP LOCKED: rows another instance is claiming right now are passed over, not waited for; its
    // lease hides them from us once it commits.
    const rows = await all(
      this.db,
      `UPDATE messages SET claimed_by = $2, lease_until = $3 WHERE id IN (
          SELECT id FROM messages WHERE ${DUE} ORDER BY next_attempt_at, id LIMIT $4 FOR UPDATE SKIP LOCKED)
        RETURNING ${MESSAGE_COLUMNS}`,
      [c.now, c.owner, c.leaseUntil, c.limit],
    );
    return rows
      .map(toMessage)
      .sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.id < b.id ? -1 : 1));
  }

  async markSent(ids: readonly string[], at: number): Promise<void> {
    if (ids.length === 0) return;
    await write(
      this.db,
      `UPDATE messages SET state = 'sent', sent_at = $1, attempts = attempts + 1, claimed_by = NULL, lease_until = NULL
        WHERE id = ANY($2::text[]) AND state = 'pending'`,
      [at, [...ids]],
    );
  }

  async reschedule(id: string, owner: string, error: string, nextAttemptAt: number | null): Promise<boolean> {
    const changed = await run(
      this.db,
      `UPDATE messages SET state = CASE WHEN $4::bigint IS NULL THEN 'dead' ELSE 'pending' END,
        next_attempt_at = COALESCE($4::bigint, next_attempt_at), last_error = $3, attempts = attempts + 1, claimed_by = NULL,
        lease_until = NULL WHERE id = $1 AND state = 'pending' AND claimed_by = $2`,
      [id, owner, error, nextAttemptAt],
    );
    return changed === 1;
  }

  async drop(id: string, why: string): Promise<void> {
    await write(this.db, SQL.drop, [why, id]);
  }

  async renewLeases(ids: readonly string[], owner: string, leaseUntil: number): Promise<number> {
    return run(this.db, pgText(renewLeases('messages', PG_IN_ARRAY)), [leaseUntil, [...ids], owner]);
  }
}
