import { type AuditEntry, OPEN_STATUSES, type RequestRecord } from '../../domain/records.js';
import type { DueCursor, HeldRequest, RequestPatch, RequestQuery, RequestRepository, RequestSummary } from '../store.js';
import { byId, consumersByRequest, json, toAudit, toHeld, toRequest, toRequestSummary } from '../row-records.js';
import { pgStatements, pgText } from '../shared/placeholders.js';
import { auditValues, REQUEST_COLUMNS, REQUEST_PLACEHOLDERS, REQUESTS, requestValues } from '../shared/requests-sql.js';
import { searchWords } from '../../core/search-words.js';
import { SEARCH_WORDS_OF, searchStatement, searchWordsOf } from './request-search.js';
import { all, type Db, one, run, whereClause, write } from './sql.js';
import type { OlderInstances } from './generation.js';
import { OPEN, WAITING } from '../shared/rules-sql.js';

/**
 * The scheduler's statements repeat the partial indexes' conditions word for word (`requests_give_up`,
 * `requests_held`), so the planner can use them: with 100,000 open requests a plan on
 * `requests_status` would read every one of them each tick. The keyset form resumes a scan after the
 * last row handled.
 */

const SQL = pgStatements(REQUESTS);
const INSERT = pgText(`INSERT INTO requests (${REQUEST_COLUMNS}, search_words)
    VALUES (${REQUEST_PLACEHOLDERS}, ${SEARCH_WORDS_OF('?')})`);
const SUBSCRIBE = 'INSERT INTO request_subscribers (request_id, consumer_id, via, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING';
// A consumer attached later: not its submitter, who is subscribed already, row or not.
const ATTACH = `INSERT INTO request_subscribers (request_id, consumer_id, via, created_at)
  SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM requests WHERE id = $1 AND consumer_id = $2) ON CONFLICT DO NOTHING`;
// A request's subscribers: its submitter (written to request_subscribers only for older instances:
// see generation.ts), then the consumers attached to it, each once, in the order they came.
const SUBSCRIBERS_OF = `SELECT id AS request_id, consumer_id, created_at, 0 AS attached FROM requests WHERE id = ANY($1::text[])
  UNION ALL SELECT request_id, consumer_id, created_at, 1 FROM request_subscribers WHERE request_id = ANY($1::text[])
  ORDER BY created_at, attached, consumer_id`;
const GIVE_UPS = `SELECT id, give_up_at FROM requests WHERE ${WAITING} AND give_up_at <= $1 ORDER BY give_up_at, id LIMIT $2`;
const GIVE_UPS_AFTER = `SELECT id, give_up_at FROM requests WHERE ${WAITING} AND give_up_at <= $1 AND give_up_at >= $2
    AND (give_up_at > $2 OR id > $3) ORDER BY give_up_at, id LIMIT $4`;
const WARNINGS = `SELECT id, warn_at FROM requests WHERE warn_at IS NOT NULL AND ${WAITING} AND warn_at <= $1 ORDER BY warn_at, id LIMIT $2`;
const WARNINGS_AFTER = `SELECT id, warn_at FROM requests WHERE warn_at IS NOT NULL AND ${WAITING} AND warn_at <= $1 AND warn_at >= $2
    AND (warn_at > $2 OR id > $3) ORDER BY warn_at, id LIMIT $4`;
const SUMMARIES = `SELECT id, consumer_id, kind, topic, question, asked_question, drafting, status, created_at,
    CASE json_typeof(context::json -> 'asked_because') WHEN 'string' THEN context::json ->> 'asked_because' END AS asked_because
  FROM requests WHERE id = ANY($1::text[])`;

/**
 * Requests with their subscribers and audit trail, in PostgreSQL. Inside a transaction (`locking`),
 * reading a request locks its row, and a dedup look-up takes a lock on its key, so two instances
 * changing one request, or submitting one dedup key, take turns.
 */
export class PgRequests implements RequestRepository {
  constructor(
    private readonly db: Db,
    private readonly locking: boolean,
    private readonly older: OlderInstances | null = null,
  ) {}

  async insert(r: RequestRecord): Promise<void> {
    await write(this.db, INSERT, [...requestValues(r), searchWordsOf(r.question, r.asked_question)]);
    if (this.older?.mayServe !== false) await write(this.db, SUBSCRIBE, [r.id, r.consumer_id, 'submitter', r.created_at]);
  }

  async get(id: string): Promise<RequestRecord | undefined> {
    const row = await one(this.db, `${SQL.get}${this.locking ? ' FOR UPDATE' : ''}`, [id]);
    return row && toRequest(row);
  }

  async summaries(ids: readonly string[]): Promise<Map<string, RequestSummary>> {
    return byId((await all(this.db, SUMMARIES, [ids])).map(toRequestSummary));
  }

  async update(id: string, patch: RequestPatch): Promise<void> {
    const sets: string[] = [];
    const values: unknown[] = [];
    const set = (column: string, value: unknown) => {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      if (key === 'reason') {
        const reason = value as RequestRecord['reason'];
        set('reason_code', reason?.code ?? null);
        set('reason_message', reason?.message ?? null);
      } else if (key === 'routing_policy') {
        set('routing_policy', json(value));
      } else {
        set(key, typeof value === 'boolean' ? Number(value) : value);
      }
    }
    if (sets.length === 0) return;
    if (patch.asked_question !== undefined) {
      // The drafted question changed: the request's words are its question's and the new draft's.
      const row = await one(this.db, 'SELECT question FROM requests WHERE id = $1', [id]);
      if (row) {
        values.push(searchWordsOf(row.question as string, patch.asked_question));
        sets.push(`search_words = ${SEARCH_WORDS_OF(`$${values.length}`)}`);
      }
    }
    await write(this.db, `UPDATE requests SET ${sets.join(', ')} WHERE id = $${values.length + 1}`, [...values, id]);
  }

  async list(q: RequestQuery): Promise<RequestRecord[]> {
    const filters: Array<[string, unknown]> = [
      ['status = $?', q.status],
      // A consumer's requests in an open status: the condition of `requests_consumer_open` word for word,
      // so the plan reads that consumer's open requests only, not its whole history.
      [q.status !== undefined && OPEN_STATUSES.includes(q.status) ? `consumer_id = $? AND ${OPEN}` : 'consumer_id = $?', q.consumer_id],
      ['topic = $?', q.topic],
      ['id < $?', q.before],
    ];
    if (q.text !== undefined) {
      const words = searchWords(q.text);
      if (words.length === 0) return [];
      const { sql, values } = await searchStatement(this.db, filters, words, q.limit);
      return (await all(this.db, sql, values)).map(toRequest);
    }
    const { where, values } = whereClause(filters);
    const sql = `SELECT * FROM requests ${where} ORDER BY id DESC LIMIT $${values.length + 1}`;
    return (await all(this.db, sql, [...values, q.limit])).map(toRequest);
  }

  async findByDedupKey(dedupKey: string, since: number): Promise<RequestRecord | undefined> {
    // Two instances submitting one key at once: the second waits here until the first commits, then
    // finds its request (READ COMMITTED reads what committed before each statement).
    if (this.locking) await write(this.db, `SELECT pg_advisory_xact_lock(hashtextextended('dedup:' || $1, 0))`, [dedupKey]);
    const row = await one(this.db, SQL.findByDedupKey, [dedupKey, since]);
    return row && toRequest(row);
  }

  async countSubmittedSince(consumerId: string, since: number): Promise<number> {
    // Two instances submitting for one consumer at once: the second waits here until the first commits,
    // then counts its request too (READ COMMITTED reads what committed before each statement, so the
    // count is a statement of its own, after the lock).
    if (this.locking) await write(this.db, `SELECT pg_advisory_xact_lock(hashtextextended('quota:' || $1, 0))`, [consumerId]);
    const row = await one(this.db, SQL.countSubmittedSince, [consumerId, since]);
    return Number(row?.n ?? 0);
  }

  async addSubscriber(requestId: string, consumerId: string, via: string, at: number): Promise<boolean> {
    return (await run(this.db, ATTACH, [requestId, consumerId, via, at])) === 1;
  }

  async subscribers(requestId: string): Promise<string[]> {
    return (await this.subscribersOfMany([requestId])).get(requestId) ?? [];
  }

  async subscribersOfMany(requestIds: readonly string[]): Promise<Map<string, string[]>> {
    const rows = await all(this.db, SUBSCRIBERS_OF, [requestIds]);
    return new Map([...consumersByRequest(rows as Array<{ request_id: string; consumer_id: string }>)].map(([id, consumers]) => [id, [...new Set(consumers)]]));
  }

  async appendAudit(e: AuditEntry): Promise<void> {
    await write(this.db, SQL.appendAudit, auditValues(e));
  }

  async audit(requestId: string): Promise<AuditEntry[]> {
    return (await all(this.db, SQL.audit, [requestId])).map(toAudit);
  }

  // Scheduler (issue 4): every query is a range on a partial index, so an idle tick costs little
  // however many requests are open.

  async dueGiveUps(now: number, after: DueCursor | null, limit: number): Promise<Array<Pick<RequestRecord, 'id' | 'give_up_at'>>> {
    const rows = after === null ? await all(this.db, GIVE_UPS, [now, limit]) : await all(this.db, GIVE_UPS_AFTER, [now, after.at, after.id, limit]);
    return rows as Array<Pick<RequestRecord, 'id' | 'give_up_at'>>;
  }

  async dueWarnings(now: number, after: DueCursor | null, limit: number): Promise<Array<{ id: string; warn_at: number }>> {
    const rows = after === null ? await all(this.db, WARNINGS, [now, limit]) : await all(this.db, WARNINGS_AFTER, [now, after.at, after.id, limit]);
    return rows as Array<{ id: string; warn_at: number }>;
  }

  async held(): Promise<HeldRequest[]> {
    return (await all(this.db, SQL.held)).map(toHeld);
  }
}
