import type Database from 'better-sqlite3';
import { type AuditEntry, OPEN_STATUSES, type RequestRecord } from '../../domain/records.js';
import type { DueCursor, HeldRequest, RequestPatch, RequestQuery, RequestRepository, RequestSummary } from '../store.js';
import { byId, consumersByRequest, toHeld } from '../row-records.js';
import { searchRequests, SqliteRequestSearch } from './request-search.js';
import { json, prepareAll, type Row, statementCache, toAudit, toRequest, toRequestSummary, whereClause } from './rows.js';
import { auditValues, REQUEST_COLUMNS, REQUEST_PLACEHOLDERS, REQUESTS, requestValues } from '../shared/requests-sql.js';
import { OPEN, WAITING } from '../shared/rules-sql.js';

/**
 * The scheduler's statements repeat the partial indexes' conditions word for word (`requests_give_up`,
 * `requests_held`), and the due-work ones pin their index (INDEXED BY): with 100,000 open requests a
 * plan on `requests_status` would read every one of them each tick. The keyset form resumes a scan
 * after the last row handled.
 */
// `requests_warn` is partial on `warn_at IS NOT NULL AND <WAITING>`: the due-warning statements repeat both.

function prepare(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    ...prepareAll(db, REQUESTS),
    insert: p(`INSERT INTO requests (${REQUEST_COLUMNS}) VALUES (${REQUEST_PLACEHOLDERS})`),
    summaries: p(`SELECT id, consumer_id, kind, topic, question, asked_question, drafting, status, created_at,
        CASE json_type(context, '$.asked_because') WHEN 'text' THEN json_extract(context, '$.asked_because') END AS asked_because
      FROM requests WHERE id IN (SELECT value FROM json_each(?))`),
    addSubscriber: p('INSERT OR IGNORE INTO request_subscribers (request_id, consumer_id, via, created_at) VALUES (?, ?, ?, ?)'),
    subscribers: p('SELECT consumer_id FROM request_subscribers WHERE request_id = ? ORDER BY created_at, consumer_id'),
    subscribersOfMany: p(`SELECT request_id, consumer_id FROM request_subscribers
        WHERE request_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, consumer_id`),
    giveUps: p(`SELECT id, give_up_at FROM requests INDEXED BY requests_give_up WHERE ${WAITING} AND give_up_at <= ? ORDER BY give_up_at, id LIMIT ?`),
    giveUpsAfter: p(`SELECT id, give_up_at FROM requests INDEXED BY requests_give_up WHERE ${WAITING} AND give_up_at <= ? AND give_up_at >= ?
      AND (give_up_at > ? OR id > ?) ORDER BY give_up_at, id LIMIT ?`),
    warnings: p(`SELECT id, warn_at FROM requests INDEXED BY requests_warn WHERE warn_at IS NOT NULL AND ${WAITING} AND warn_at <= ? ORDER BY warn_at, id LIMIT ?`),
    warningsAfter: p(`SELECT id, warn_at FROM requests INDEXED BY requests_warn WHERE warn_at IS NOT NULL AND ${WAITING} AND warn_at <= ? AND warn_at >= ?
      AND (warn_at > ? OR id > ?) ORDER BY warn_at, id LIMIT ?`),
  };
}

/** How the submitter of a request is subscribed to it. */
const SUBMITTER = 'submitter';

/** Requests with their subscribers and audit trail, in SQLite. */
export class SqliteRequests implements RequestRepository {
  private readonly stmts: ReturnType<typeof prepare>;
  private readonly prepareCached: (sql: string) => Database.Statement;
  private readonly search: SqliteRequestSearch;

  constructor(db: Database.Database) {
    this.stmts = prepare(db);
    this.prepareCached = statementCache(db);
    this.search = new SqliteRequestSearch(db);
  }

  async insert(r: RequestRecord): Promise<void> {
    this.stmts.insert.run(...requestValues(r));
    this.stmts.addSubscriber.run(r.id, r.consumer_id, SUBMITTER, r.created_at);
  }

  async get(id: string): Promise<RequestRecord | undefined> {
    const row = this.stmts.get.get(id) as Row | undefined;
    return row && toRequest(row);
  }

  async summaries(ids: readonly string[]): Promise<Map<string, RequestSummary>> {
    return byId((this.stmts.summaries.all(JSON.stringify(ids)) as Row[]).map(toRequestSummary));
  }

  async update(id: string, patch: RequestPatch): Promise<void> {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      if (key === 'reason') {
        const reason = value as RequestRecord['reason'];
        sets.push('reason_code = ?', 'reason_message = ?');
        values.push(reason?.code ?? null, reason?.message ?? null);
      } else if (key === 'routing_policy') {
        sets.push('routing_policy = ?');
        values.push(json(value));
      } else {
        sets.push(`${key} = ?`);
        values.push(typeof value === 'boolean' ? Number(value) : value);
      }
    }
    if (sets.length === 0) return;
    this.prepareCached(`UPDATE requests SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
    if (patch.asked_question !== undefined) this.search.reindex(id);
  }

  async list(q: RequestQuery): Promise<RequestRecord[]> {
    const filters: Array<[string, unknown]> = [
      ['status = ?', q.status],
      // A consumer's requests in an open status: the condition of `requests_consumer_open` word for word,
      // so the plan reads that consumer's open requests only, not its whole history.
      [q.status !== undefined && OPEN_STATUSES.includes(q.status) ? `consumer_id = ? AND ${OPEN}` : 'consumer_id = ?', q.consumer_id],
      ['topic = ?', q.topic],
      ['id < ?', q.before],
    ];
    if (q.text !== undefined) return searchRequests(this.prepareCached, filters, q.text, q.limit).map(toRequest);
    const { where, values } = whereClause(filters);
    return (this.prepareCached(`SELECT * FROM requests ${where} ORDER BY id DESC LIMIT ?`).all(...values, q.limit) as Row[]).map(toRequest);
  }

  async findByDedupKey(dedupKey: string, since: number): Promise<RequestRecord | undefined> {
    const row = this.stmts.findByDedupKey.get(dedupKey, since) as Row | undefined;
    return row && toRequest(row);
  }

  async countSubmittedSince(consumerId: string, since: number): Promise<number> {
    // A transaction holds SQLite's one writer from its start: nobody else inserts while it counts.
    return (this.stmts.countSubmittedSince.get(consumerId, since) as { n: number }).n;
  }

  async addSubscriber(requestId: string, consumerId: string, via: string, at: number): Promise<boolean> {
    return this.stmts.addSubscriber.run(requestId, consumerId, via, at).changes === 1;
  }

  async subscribers(requestId: string): Promise<string[]> {
    return (this.stmts.subscribers.all(requestId) as Row[]).map((r) => r.consumer_id as string);
  }

  async subscribersOfMany(requestIds: readonly string[]): Promise<Map<string, string[]>> {
    return consumersByRequest(this.stmts.subscribersOfMany.all(JSON.stringify(requestIds)) as Array<{ request_id: string; consumer_id: string }>);
  }

  async appendAudit(e: AuditEntry): Promise<void> {
    this.stmts.appendAudit.run(...auditValues(e));
  }

  async audit(requestId: string): Promise<AuditEntry[]> {
    return (this.stmts.audit.all(requestId) as Row[]).map(toAudit);
  }

  // Scheduler (issue 4): every query is a range on a partial index, so an idle tick costs
  // microseconds however many requests are open.

  async dueGiveUps(now: number, after: DueCursor | null, limit: number): Promise<Array<Pick<RequestRecord, 'id' | 'give_up_at'>>> {
    return (after === null ? this.stmts.giveUps.all(now, limit) : this.stmts.giveUpsAfter.all(now, after.at, after.at, after.id, limit)) as Array<
      Pick<RequestRecord, 'id' | 'give_up_at'>
    >;
  }

  async dueWarnings(now: number, after: DueCursor | null, limit: number): Promise<Array<{ id: string; warn_at: number }>> {
    return (after === null ? this.stmts.warnings.all(now, limit) : this.stmts.warningsAfter.all(now, after.at, after.at, after.id, limit)) as Array<{
      id: string;
      warn_at: number;
    }>;
  }

  async held(): Promise<HeldRequest[]> {
    return (this.stmts.held.all() as Row[]).map(toHeld);
  }
}
