import { countPrunable, pruneBatch, type PruneCounts, type RetentionCutoffs } from './prune.js';
import { closeSync, existsSync, openSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../config/load-config.js';
import type {
  AskRecord, AuditEntry, ChatRef, ConsumerRecord, Decision, DeliveryJob, DeliveryRecord, EventRecord, ExpertLiveState,
  LlmJobRecord, MessageRecord, ProposalRecord, RequestRecord,
} from '../domain/records.js';
import { MIGRATIONS } from './migrations.js';
import { isStorageFault, toStoreError } from './storage-errors.js';
import type {
  AskPatch, DeliveryClaim, LeasedWork, MetricCounts, DeliveryOutcome, DeliveryQuery, DueCursor, HeldRequest, RequestPatch, RequestQuery, Store,
  WaitingAsk, WorkClaim,
} from './store.js';

type Row = Record<string, unknown>;

/**
 * Below this much free disk `/readyz` fails: a checkpoint may grow the database by the whole WAL
 * (about 4 MB at SQLite's default of 1,000 pages), and the next burst needs room beyond that.
 */
const MIN_FREE_BYTES = 16 * 1_048_576;
const FAILURE_MEMORY_MS = 60_000;
/** How long a write waits for another process's write lock, blocking the event loop meanwhile. */
export const BUSY_TIMEOUT_MS = 250;

/** Opens (creating if needed) a SQLite database with the durability expertq promises. */
export function openDatabase(path: string): Database.Database {
  // A new database is the owner's only (SQLite gives its -wal and -shm the same mode): it holds
  // consumers' signing secrets. An existing file keeps the mode its operator chose.
  if (path !== ':memory:' && !existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // FULL: an acknowledged decision survives power loss, not only a process crash.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // This process is the database's only writer (the lock): a busy database means another process (an
  // operator's sqlite3, `expertq prune`) holds the write lock. Waiting for it blocks the event loop, so
  // wait briefly; a write that still cannot go answers 503 with Retry-After, and the scheduler and the
  // dispatchers try again on their next turn.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  migrate(db);
  return db;
}

export function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new ConfigError(
      `The database ${db.name} is at schema version ${version}, newer than this expertq (${MIGRATIONS.length}): a newer expertq has used it. ` +
        'Run that version, or restore the backup taken before the upgrade (docs/operations.md).',
    );
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

const json = (value: unknown) => JSON.stringify(value);
const parseJson = (text: unknown): unknown => (text === null || text === undefined ? null : JSON.parse(text as string));

/** `WHERE a = ? AND b = ?` from the filters whose value is given (list endpoints' optional filters). */
function whereClause(filters: Array<[clause: string, value: unknown]>): { where: string; values: unknown[] } {
  const given = filters.filter(([, value]) => value !== undefined);
  return { where: given.length ? `WHERE ${given.map(([c]) => c).join(' AND ')}` : '', values: given.map(([, v]) => v) };
}

function toRequest(r: Row): RequestRecord {
  return {
    id: r.id as string,
    consumer_id: r.consumer_id as string,
    kind: r.kind as string,
    topic: r.topic as string,
    question: r.question as string,
    context: JSON.parse(r.context as string),
    target_experts: r.target_experts === null ? null : JSON.parse(r.target_experts as string),
    routing_policy: JSON.parse(r.routing_policy as string),
    own_policy: r.own_policy === null || r.own_policy === undefined ? null : JSON.parse(r.own_policy as string),
    dedup_key: r.dedup_key as string | null,
    status: r.status as RequestRecord['status'],
    reason: r.reason_code === null ? null : { code: r.reason_code as never, message: r.reason_message as string },
    proposal_id: r.proposal_id as string | null,
    held: r.held === 1,
    drafting: r.drafting === 1,
    asked_question: r.asked_question as string | null,
    give_up_at: r.give_up_at as number,
    created_at: r.created_at as number,
    updated_at: r.updated_at as number,
  };
}

function toProposal(r: Row): ProposalRecord {
  return {
    id: r.id as string,
    request_id: r.request_id as string,
    status: r.status as ProposalRecord['status'],
    answer: r.answer as string,
    structured: JSON.parse(r.structured as string),
    confidence: r.confidence as number | null,
    provenance: JSON.parse(r.provenance as string),
    decision:
      r.decided_at === null
        ? null
        : {
            decided_by: r.decided_by as string,
            note: r.note as string | null,
            reason: r.reason as string | null,
            decided_at: r.decided_at as number,
          },
    original_answer: (r.original_answer as string | null | undefined) ?? null,
    created_at: r.created_at as number,
  };
}

function toConsumer(r: Row): ConsumerRecord {
  return {
    id: r.id as string,
    handles_kinds: JSON.parse(r.handles_kinds as string),
    delivery: JSON.parse(r.delivery as string),
    secret: r.secret as string | null,
    dedup_window: r.dedup_window as string,
    dedup_window_ms: r.dedup_window_ms as number,
    auto_accept: r.auto_accept === 1,
    kind_schemas: r.kind_schemas === null ? null : JSON.parse(r.kind_schemas as string),
    created_at: r.created_at as number,
    updated_at: r.updated_at as number,
  };
}

const DELIVERY_COLUMNS = `id, event_id, consumer_id, request_id, state, attempts, next_attempt_at, last_status, last_error,
  created_at, delivered_at`;

const toAudit = (r: Row): AuditEntry => ({
  request_id: r.request_id as string,
  at: r.at as number,
  type: r.type as AuditEntry['type'],
  actor: r.actor as string,
  data: JSON.parse(r.data as string),
});

interface Pending {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** The SQLite store. Statements are prepared once; better-sqlite3 runs them synchronously. */
export class SqliteStore implements Store {
  private readonly stmts;
  private readonly due: ReturnType<typeof prepareDueStatements>;
  private readonly llm: ReturnType<typeof prepareLlmStatements>;
  private readonly dynamic = new Map<string, Database.Statement>();
  private readonly pending: Pending[] = [];
  private flushScheduled = false;

  constructor(readonly db: Database.Database) {
    const p = (sql: string) => db.prepare(sql);
    this.stmts = {
      insertRequest: p(`INSERT INTO requests (id, consumer_id, kind, topic, question, context, target_experts,
        routing_policy, dedup_key, status, reason_code, reason_message, proposal_id, held, give_up_at, created_at, updated_at,
        drafting, asked_question, own_policy)
        VALUES (@id, @consumer_id, @kind, @topic, @question, @context, @target_experts, @routing_policy, @dedup_key,
        @status, @reason_code, @reason_message, @proposal_id, @held, @give_up_at, @created_at, @updated_at,
        @drafting, @asked_question, @own_policy)`),
      getRequest: p('SELECT * FROM requests WHERE id = ?'),
      findByDedupKey: p('SELECT * FROM requests WHERE dedup_key = ? AND created_at >= ? ORDER BY created_at DESC, id DESC LIMIT 1'),
      addSubscriber: p('INSERT OR IGNORE INTO request_subscribers (request_id, consumer_id, via, created_at) VALUES (?, ?, ?, ?)'),
      listSubscribers: p('SELECT consumer_id FROM request_subscribers WHERE request_id = ? ORDER BY created_at, consumer_id'),
      insertAsk: p(`INSERT INTO asks (id, request_id, expert_id, state, via, created_at, sent_at, escalate_at, closed_at, send_after, instructions)
        VALUES (@id, @request_id, @expert_id, @state, @via, @created_at, @sent_at, @escalate_at, @closed_at, @send_after, @instructions)`),
      listAsks: p('SELECT * FROM asks WHERE request_id = ? ORDER BY created_at, id'),
      askOnRequest: p(`SELECT * FROM asks WHERE expert_id = ? AND request_id = ?
        ORDER BY CASE state WHEN 'open' THEN 0 WHEN 'escalated' THEN 1 ELSE 2 END, created_at DESC LIMIT 1`),
      oldestOpenAsk: p(`SELECT * FROM asks WHERE expert_id = ? AND state = 'open' ORDER BY sent_at, id LIMIT 1`),
      // One expert: each query is a range on an index of asks.
      oneState: p(`SELECT
        (SELECT COUNT(*) FROM asks WHERE expert_id = @id AND state = 'open') AS open,
        (SELECT COUNT(*) FROM asks WHERE expert_id = @id AND state = 'queued') AS queued,
        (SELECT COUNT(*) FROM asks WHERE expert_id = @id AND sent_at >= @dayStart) AS today,
        (SELECT muted FROM expert_state WHERE expert_id = @id) AS muted`),
      // Every expert: scans only live asks and today's asks (partial and sent_at indexes).
      allLive: p(`SELECT expert_id, SUM(state = 'open') AS open, SUM(state = 'queued') AS queued FROM asks
        WHERE state IN ('open', 'queued') GROUP BY expert_id`),
      allToday: p('SELECT expert_id, COUNT(*) AS today FROM asks WHERE sent_at >= ? GROUP BY expert_id'),
      allMuted: p('SELECT expert_id FROM expert_state WHERE muted = 1'),
      setMuted: p(`INSERT INTO expert_state (expert_id, muted, updated_at) VALUES (?, ?, ?)
        ON CONFLICT (expert_id) DO UPDATE SET muted = excluded.muted, updated_at = excluded.updated_at`),
      insertProposal: p(`INSERT INTO proposals (id, request_id, status, answer, structured, confidence, provenance, created_at)
        VALUES (@id, @request_id, @status, @answer, @structured, @confidence, @provenance, @created_at)`),
      getProposal: p('SELECT * FROM proposals WHERE id = ?'),
      decideProposal: p(`UPDATE proposals SET status = ?, decided_by = ?, note = ?, reason = ?, decided_at = ?
        WHERE id = ? AND status = 'pending'`),
      listPending: p(`SELECT * FROM proposals WHERE status = 'pending' ORDER BY id`),
      oldestPending: p(`SELECT * FROM proposals WHERE status = 'pending' ORDER BY id LIMIT 1`),
      listProposals: p('SELECT * FROM proposals WHERE request_id = ? ORDER BY created_at, id'),
      reviseProposal: p(`UPDATE proposals SET answer = @answer, structured = @structured, original_answer = @original_answer,
        provenance = @provenance WHERE id = @id`),
      appendAudit: p('INSERT INTO audit (request_id, at, type, actor, data) VALUES (?, ?, ?, ?, ?)'),
      listAudit: p('SELECT * FROM audit WHERE request_id = ? ORDER BY seq'),
      insertEvent: p('INSERT INTO events (id, request_id, type, body, created_at) VALUES (?, ?, ?, ?, ?)'),
      enqueueMessage: p(`INSERT INTO messages (id, expert_id, request_id, ask_id, proposal_id, purpose, text, elements, state,
        attempts, next_attempt_at, created_at) VALUES (@id, @expert_id, @request_id, @ask_id, @proposal_id, @purpose, @text,
        @elements, @state, @attempts, @next_attempt_at, @created_at)`),
      anyDueMessage: p(`SELECT EXISTS (SELECT 1 FROM messages INDEXED BY messages_due WHERE state = 'pending'
        AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until <= @now)) AS due`),
      claimMessages: p(`UPDATE messages SET claimed_by = @owner, lease_until = @leaseUntil WHERE id IN (
          SELECT id FROM messages INDEXED BY messages_due WHERE state = 'pending' AND next_attempt_at <= @now
            AND (lease_until IS NULL OR lease_until <= @now) ORDER BY next_attempt_at, id LIMIT @limit)
        RETURNING *`),
      markMessageSent: p(`UPDATE messages SET state = 'sent', sent_at = ?, attempts = attempts + 1, claimed_by = NULL,
        lease_until = NULL WHERE id = ? AND state = 'pending'`),
      rescheduleMessage: p(`UPDATE messages SET state = CASE WHEN @next IS NULL THEN 'dead' ELSE 'pending' END,
        next_attempt_at = COALESCE(@next, next_attempt_at), last_error = @error, attempts = attempts + 1, claimed_by = NULL,
        lease_until = NULL WHERE id = @id AND state = 'pending' AND claimed_by = @owner`),
      dropMessage: p(`UPDATE messages SET state = 'dropped', last_error = ?, claimed_by = NULL, lease_until = NULL
        WHERE id = ? AND state = 'pending'`),
      renewMessages: p(`UPDATE messages SET lease_until = @leaseUntil WHERE id IN (SELECT value FROM json_each(@ids))
        AND state = 'pending' AND claimed_by = @owner`),
      renewDeliveries: p(`UPDATE deliveries SET lease_until = @leaseUntil WHERE id IN (SELECT value FROM json_each(@ids))
        AND state = 'pending' AND claimed_by = @owner`),
      getAsk: p('SELECT * FROM asks WHERE id = ?'),
      openAsksOf: p(`SELECT * FROM asks WHERE expert_id = ? AND state = 'open' ORDER BY sent_at, id`),
      askElements: p(`SELECT elements FROM messages WHERE ask_id = ? AND purpose = 'ask' ORDER BY created_at DESC, id DESC LIMIT 1`),
      setChatRef: p('INSERT OR REPLACE INTO chat_asks (ask_id, channel, ts, thread_ts) VALUES (?, ?, ?, ?)'),
      chatRef: p('SELECT channel, ts, thread_ts FROM chat_asks WHERE ask_id = ?'),
      askByChatRef: p(`SELECT asks.* FROM chat_asks JOIN asks ON asks.id = chat_asks.ask_id
        WHERE chat_asks.channel = @channel AND (chat_asks.ts = @ts OR chat_asks.thread_ts = @ts)
        ORDER BY asks.created_at DESC, asks.id DESC LIMIT 1`),
      firstChatRef: p(`SELECT c.channel, c.ts, c.thread_ts FROM asks a JOIN chat_asks c ON c.ask_id = a.id
        WHERE a.request_id = ? AND a.expert_id = ? ORDER BY a.created_at, a.id LIMIT 1`),
      markChatEvent: p('INSERT OR IGNORE INTO chat_events (id, at) VALUES (?, ?)'),
      setReviewCard: p('INSERT OR REPLACE INTO review_cards (proposal_id, channel, ts) VALUES (?, ?, ?)'),
      reviewCard: p('SELECT channel, ts FROM review_cards WHERE proposal_id = ?'),
      overdueCards: p(`SELECT c.proposal_id FROM review_cards c JOIN proposals p ON p.id = c.proposal_id
        JOIN requests r ON r.id = p.request_id WHERE c.overdue = 0 AND p.status = 'pending' AND r.give_up_at <= ?`),
      markOverdue: p('UPDATE review_cards SET overdue = 1 WHERE proposal_id = ?'),
      getState: p('SELECT value FROM service_state WHERE key = ?'),
      requestsByStatus: p('SELECT status, COUNT(*) AS n FROM requests GROUP BY status'),
      messageBacklog: p(`SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM messages WHERE state = 'pending'`),
      deliveryBacklog: p(`SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM deliveries WHERE state = 'pending'`),
      deadDeliveries: p(`SELECT COUNT(*) AS n FROM deliveries WHERE state = 'dead'`),
      pendingProposals: p(`SELECT COUNT(*) AS n FROM proposals WHERE status = 'pending'`),
      setState: p('INSERT OR REPLACE INTO service_state (key, value) VALUES (?, ?)'),
      upsertConsumer: p(`INSERT INTO consumers (id, handles_kinds, delivery_type, delivery, secret, dedup_window,
        dedup_window_ms, auto_accept, kind_schemas, created_at, updated_at)
        VALUES (@id, @handles_kinds, @delivery_type, @delivery, @secret, @dedup_window, @dedup_window_ms, @auto_accept,
        @kind_schemas, @created_at, @updated_at)
        ON CONFLICT (id) DO UPDATE SET handles_kinds = excluded.handles_kinds, delivery_type = excluded.delivery_type,
        delivery = excluded.delivery, secret = excluded.secret, dedup_window = excluded.dedup_window,
        dedup_window_ms = excluded.dedup_window_ms, auto_accept = excluded.auto_accept,
        kind_schemas = excluded.kind_schemas, updated_at = excluded.updated_at`),
      getConsumer: p('SELECT * FROM consumers WHERE id = ?'),
      listConsumers: p('SELECT * FROM consumers ORDER BY created_at, rowid'),
      deleteConsumer: p('DELETE FROM consumers WHERE id = ?'),
      insertDelivery: p(`INSERT INTO deliveries (${DELIVERY_COLUMNS}) VALUES (@id, @event_id, @consumer_id, @request_id,
        @state, @attempts, @next_attempt_at, @last_status, @last_error, @created_at, @delivered_at)`),
      getDelivery: p(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE id = ?`),
      claimDeliveries: p(`UPDATE deliveries SET claimed_by = @owner, lease_until = @leaseUntil, attempts = attempts + 1 WHERE id IN (
          SELECT due.id FROM (
            SELECT d.id, d.next_attempt_at, d.consumer_id,
              ROW_NUMBER() OVER (PARTITION BY d.consumer_id ORDER BY d.next_attempt_at, d.id) AS nth
            FROM deliveries d JOIN consumers c ON c.id = d.consumer_id
            WHERE d.state = 'pending' AND d.next_attempt_at <= @now AND (d.lease_until IS NULL OR d.lease_until <= @now)
              AND (c.delivery_type = 'webhook' OR c.id IN (SELECT value FROM json_each(@live)))
          ) AS due LEFT JOIN json_each(@inFlight) AS busy ON busy.key = due.consumer_id
          WHERE due.nth <= @perConsumer - COALESCE(busy.value, 0) ORDER BY due.next_attempt_at, due.id LIMIT @limit)
        RETURNING ${DELIVERY_COLUMNS}`),
      anyDueDelivery: p(`SELECT EXISTS (SELECT 1 FROM deliveries WHERE state = 'pending' AND next_attempt_at <= ?) AS due`),
      eventBodies: p(`SELECT id, type, body FROM events WHERE id IN (SELECT value FROM json_each(?))`),
      finishDelivery: p(`UPDATE deliveries SET state = @state, claimed_by = NULL, lease_until = NULL, last_status = @status,
        last_error = @error, next_attempt_at = COALESCE(@nextAttemptAt, next_attempt_at),
        delivered_at = CASE WHEN @state = 'delivered' THEN @at ELSE delivered_at END WHERE id = @id`),
      pendingFor: p(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE consumer_id = ? AND state = 'pending'`),
      dropPending: p(`UPDATE deliveries SET state = 'dropped', lease_until = NULL, last_error = 'consumer deleted'
        WHERE consumer_id = ? AND state = 'pending'`),
      retryDelivery: p(`UPDATE deliveries SET state = 'pending', next_attempt_at = ?, lease_until = NULL WHERE id = ?`),
    };
    this.due = prepareDueStatements(db);
    this.llm = prepareLlmStatements(db);
  }

  transaction<T>(fn: () => T): T {
    try {
      const value = this.db.transaction(fn).immediate();
      this.lastWriteFailure = null;
      return value;
    } catch (caught) {
      const error = toStoreError(caught);
      this.noteFailure(error);
      throw error;
    }
  }

  /**
   * The last write that failed for want of storage (disk full, read-only, I/O error), until a write
   * succeeds again. `/readyz` reports it: a probe write of its own could pass on pages the WAL already
   * holds while real writes fail.
   */
  lastWriteFailure: { at: number; message: string } | null = null;

  private noteFailure(error: unknown): void {
    if (isStorageFault(error)) this.lastWriteFailure = { at: Date.now(), message: (error as Error).message };
  }

  /**
   * Group commit: every `commit` issued in the same turn of the event loop runs in one SQLite
   * transaction, each inside its own savepoint (a failing one rolls back alone and rejects alone).
   * Each promise resolves only after the shared COMMIT is durable, so callers answer as late as they
   * would with a transaction of their own, but a burst costs one fsync instead of one per operation.
   */
  commit<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flushCommits());
      }
    });
  }

  private flushCommits(): void {
    this.flushScheduled = false;
    const batch = this.pending.splice(0);
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.db.transaction(() => {
        for (const item of batch) {
          try {
            results.push({ ok: true, value: this.db.transaction(item.fn)() });
          } catch (caught) {
            const error = toStoreError(caught);
            this.noteFailure(error);
            // On some errors (a full disk, I/O) SQLite rolls the whole transaction back: then nothing of
            // this batch was written, and the rest must not run, each committing alone, outside it.
            if (!this.db.inTransaction) throw error;
            results.push({ ok: false, error });
          }
        }
      }).immediate();
    } catch (caught) {
      const error = toStoreError(caught);
      this.noteFailure(error);
      for (const item of batch) item.reject(error);
      return;
    }
    if (results.some((r) => r.ok)) this.lastWriteFailure = null;
    batch.forEach((item, i) => {
      const result = results[i]!;
      if (result.ok) item.resolve(result.value);
      else item.reject(result.error);
    });
  }

  private prepareCached(sql: string): Database.Statement {
    let stmt = this.dynamic.get(sql);
    if (!stmt) this.dynamic.set(sql, (stmt = this.db.prepare(sql)));
    return stmt;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  insertRequest(r: RequestRecord): void {
    this.stmts.insertRequest.run({
      ...r,
      context: json(r.context),
      target_experts: r.target_experts === null ? null : json(r.target_experts),
      routing_policy: json(r.routing_policy),
      own_policy: r.own_policy === null ? null : json(r.own_policy),
      reason_code: r.reason?.code ?? null,
      reason_message: r.reason?.message ?? null,
      held: r.held ? 1 : 0,
      drafting: r.drafting ? 1 : 0,
      reason: undefined,
    });
  }

  getRequest(id: string): RequestRecord | undefined {
    const row = this.stmts.getRequest.get(id) as Row | undefined;
    return row && toRequest(row);
  }

  updateRequest(id: string, patch: RequestPatch): void {
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
  }

  listRequests(q: RequestQuery): RequestRecord[] {
    const { where, values } = whereClause([
      ['status = ?', q.status],
      ['consumer_id = ?', q.consumer_id],
      ['topic = ?', q.topic],
      ["(question || char(10) || coalesce(asked_question, '')) LIKE ? ESCAPE '\\'", q.text === undefined ? undefined : `%${q.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`],
      ['id < ?', q.before],
    ]);
    const sql = `SELECT * FROM requests ${where} ORDER BY id DESC LIMIT ?`;
    return (this.prepareCached(sql).all(...values, q.limit) as Row[]).map(toRequest);
  }

  findByDedupKey(dedupKey: string, since: number): RequestRecord | undefined {
    const row = this.stmts.findByDedupKey.get(dedupKey, since) as Row | undefined;
    return row && toRequest(row);
  }

  addSubscriber(requestId: string, consumerId: string, via: string, at: number): boolean {
    return this.stmts.addSubscriber.run(requestId, consumerId, via, at).changes === 1;
  }

  listSubscribers(requestId: string): string[] {
    return (this.stmts.listSubscribers.all(requestId) as Row[]).map((r) => r.consumer_id as string);
  }

  insertAsk(ask: AskRecord): void {
    this.stmts.insertAsk.run({ ...ask, instructions: ask.instructions ?? null });
  }

  updateAsk(id: string, patch: AskPatch): void {
    const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return;
    this.prepareCached(`UPDATE asks SET ${entries.map(([k]) => `${k} = ?`).join(', ')} WHERE id = ?`).run(...entries.map(([, v]) => v), id);
  }

  listAsks(requestId: string): AskRecord[] {
    return this.stmts.listAsks.all(requestId) as AskRecord[];
  }

  findAskForReply(expertId: string, requestId: string | null): AskRecord | undefined {
    return (
      requestId === null ? this.stmts.oldestOpenAsk.get(expertId) : this.stmts.askOnRequest.get(expertId, requestId)
    ) as AskRecord | undefined;
  }

  expertStates(ids: readonly string[] | null, dayStart: number): Map<string, ExpertLiveState> {
    const states = new Map<string, ExpertLiveState>();
    if (ids !== null) {
      for (const id of new Set(ids)) {
        const r = this.stmts.oneState.get({ id, dayStart }) as { open: number; queued: number; today: number; muted: number | null };
        states.set(id, { muted: r.muted === 1, openAsks: r.open, queuedAsks: r.queued, asksToday: r.today });
      }
      return states;
    }
    const get = (id: string) => {
      let s = states.get(id);
      if (!s) states.set(id, (s = { muted: false, openAsks: 0, queuedAsks: 0, asksToday: 0 }));
      return s;
    };
    for (const r of this.stmts.allLive.all() as Row[]) {
      const s = get(r.expert_id as string);
      s.openAsks = r.open as number;
      s.queuedAsks = r.queued as number;
    }
    for (const r of this.stmts.allToday.all(dayStart) as Row[]) get(r.expert_id as string).asksToday = r.today as number;
    for (const r of this.stmts.allMuted.all() as Row[]) get(r.expert_id as string).muted = true;
    return states;
  }

  setMuted(expertId: string, muted: boolean, at: number): void {
    this.stmts.setMuted.run(expertId, muted ? 1 : 0, at);
  }

  insertProposal(p: ProposalRecord): void {
    this.stmts.insertProposal.run({
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

  getProposal(id: string): ProposalRecord | undefined {
    const row = this.stmts.getProposal.get(id) as Row | undefined;
    return row && toProposal(row);
  }

  decideProposal(id: string, status: 'accepted' | 'rejected', d: Decision): boolean {
    return this.stmts.decideProposal.run(status, d.decided_by, d.note, d.reason, d.decided_at, id).changes === 1;
  }

  listPendingProposals(): ProposalRecord[] {
    return (this.stmts.listPending.all() as Row[]).map(toProposal);
  }

  oldestPendingProposal(): ProposalRecord | undefined {
    const row = this.stmts.oldestPending.get() as Row | undefined;
    return row && toProposal(row);
  }

  listProposals(requestId: string): ProposalRecord[] {
    return (this.stmts.listProposals.all(requestId) as Row[]).map(toProposal);
  }

  reviseProposal(id: string, r: Pick<ProposalRecord, 'answer' | 'structured' | 'original_answer' | 'provenance'>): void {
    this.stmts.reviseProposal.run({ id, answer: r.answer, structured: json(r.structured), original_answer: r.original_answer, provenance: json(r.provenance) });
  }

  appendAudit(e: AuditEntry): void {
    this.stmts.appendAudit.run(e.request_id, e.at, e.type, e.actor, json(e.data));
  }

  listAudit(requestId: string): AuditEntry[] {
    return (this.stmts.listAudit.all(requestId) as Row[]).map(toAudit);
  }

  insertEvent(e: EventRecord): void {
    this.stmts.insertEvent.run(e.id, e.request_id, e.type, json(e.body), e.created_at);
  }

  listEvents(requestId: string): EventRecord[] {
    const rows = this.prepareCached('SELECT id, request_id, type, body, created_at FROM events WHERE request_id = ? ORDER BY created_at, id').all(requestId) as Row[];
    return rows.map((r) => ({ ...r, body: JSON.parse(r.body as string) }) as EventRecord);
  }

  listMessages(requestId: string): MessageRecord[] {
    const rows = this.prepareCached(`SELECT id, expert_id, request_id, ask_id, proposal_id, purpose, text, elements, state, attempts,
      next_attempt_at, created_at, sent_at, last_error FROM messages WHERE request_id = ? ORDER BY created_at, id`).all(requestId) as Row[];
    return rows.map((r) => ({ ...r, elements: parseJson(r.elements) }) as MessageRecord);
  }

  countPrunable(cutoffs: RetentionCutoffs): PruneCounts {
    return countPrunable(this.db, cutoffs);
  }

  pruneBatch(cutoffs: RetentionCutoffs, limit: number): PruneCounts {
    return pruneBatch(this.db, cutoffs, limit);
  }

  enqueueMessage(m: MessageRecord): void {
    this.stmts.enqueueMessage.run({ ...m, proposal_id: m.proposal_id ?? null, elements: m.elements === null ? null : json(m.elements) });
  }

  claimMessages(c: WorkClaim): MessageRecord[] {
    // Woken after every commit, the dispatcher mostly finds nothing due: a read answers that without a write.
    if ((this.stmts.anyDueMessage.get({ now: c.now }) as { due: number }).due === 0) return [];
    return (this.stmts.claimMessages.all({ now: c.now, owner: c.owner, leaseUntil: c.leaseUntil, limit: c.limit }) as Row[])
      .map((r) => {
        const { claimed_by: _owner, lease_until: _lease, ...message } = r;
        return { ...message, elements: parseJson(r.elements) } as MessageRecord;
      })
      .sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.id < b.id ? -1 : 1));
  }

  renewLeases(work: LeasedWork, ids: readonly string[], owner: string, leaseUntil: number): number {
    const stmt = work === 'message' ? this.stmts.renewMessages : work === 'delivery' ? this.stmts.renewDeliveries : this.llm.renew;
    return stmt.run({ ids: json(ids), owner, leaseUntil }).changes;
  }

  markMessagesSent(ids: readonly string[], at: number): void {
    for (const id of ids) this.stmts.markMessageSent.run(at, id);
  }

  rescheduleMessage(id: string, owner: string, error: string, nextAttemptAt: number | null): boolean {
    return this.stmts.rescheduleMessage.run({ id, owner, error, next: nextAttemptAt }).changes === 1;
  }

  dropMessage(id: string, why: string): void {
    this.stmts.dropMessage.run(why, id);
  }

  getAsk(id: string): AskRecord | undefined {
    return this.stmts.getAsk.get(id) as AskRecord | undefined;
  }

  openAsksOf(expertId: string): AskRecord[] {
    return this.stmts.openAsksOf.all(expertId) as AskRecord[];
  }

  askElements(askId: string): string[] | null {
    const row = this.stmts.askElements.get(askId) as Row | undefined;
    return row ? (parseJson(row.elements) as string[] | null) : null;
  }

  setChatRef(askId: string, ref: ChatRef): void {
    this.stmts.setChatRef.run(askId, ref.channel, ref.ts, ref.thread_ts ?? null);
  }

  chatRef(askId: string): ChatRef | undefined {
    return this.stmts.chatRef.get(askId) as ChatRef | undefined;
  }

  askByChatRef(ref: ChatRef): AskRecord | undefined {
    return this.stmts.askByChatRef.get({ channel: ref.channel, ts: ref.ts }) as AskRecord | undefined;
  }

  firstChatRef(requestId: string, expertId: string): ChatRef | undefined {
    return this.stmts.firstChatRef.get(requestId, expertId) as ChatRef | undefined;
  }

  markChatEvent(id: string, at: number): boolean {
    return this.stmts.markChatEvent.run(id, at).changes === 1;
  }

  setReviewCard(proposalId: string, ref: ChatRef): void {
    this.stmts.setReviewCard.run(proposalId, ref.channel, ref.ts);
  }

  reviewCard(proposalId: string): ChatRef | undefined {
    return this.stmts.reviewCard.get(proposalId) as ChatRef | undefined;
  }

  takeOverdueReviewCards(now: number): string[] {
    const ids = (this.stmts.overdueCards.all(now) as Row[]).map((r) => r.proposal_id as string);
    for (const id of ids) this.stmts.markOverdue.run(id);
    return ids;
  }

  metricCounts(): MetricCounts {
    const messages = this.stmts.messageBacklog.get() as { n: number; oldest: number | null };
    const deliveries = this.stmts.deliveryBacklog.get() as { n: number; oldest: number | null };
    return {
      requestsByStatus: Object.fromEntries((this.stmts.requestsByStatus.all() as Row[]).map((r) => [r.status as string, r.n as number])),
      pendingMessages: messages.n,
      oldestPendingMessageAt: messages.oldest,
      pendingDeliveries: deliveries.n,
      oldestPendingDeliveryAt: deliveries.oldest,
      deadDeliveries: (this.stmts.deadDeliveries.get() as { n: number }).n,
      pendingProposals: (this.stmts.pendingProposals.get() as { n: number }).n,
    };
  }

  checkWritable(minFreeBytes = MIN_FREE_BYTES): void {
    this.db.exec('BEGIN IMMEDIATE');
    this.db.exec('ROLLBACK');
    // A failure counts for a minute: a load balancer that stops sending traffic must not keep the
    // server unready for want of a write that would clear it. A full disk stays caught by the check
    // of free space below.
    if (this.lastWriteFailure && Date.now() - this.lastWriteFailure.at < FAILURE_MEMORY_MS) {
      throw new Error(`a write failed ${Math.round((Date.now() - this.lastWriteFailure.at) / 1000)} s ago (${this.lastWriteFailure.message}) and none has succeeded since`);
    }
    if (this.db.name !== ':memory:' && this.db.name !== '') {
      const disk = statfsSync(dirname(this.db.name));
      const free = disk.bavail * disk.bsize;
      if (free < minFreeBytes) throw new Error(`only ${(free / 1_048_576).toFixed(1)} MB free on the disk that holds ${this.db.name}`);
    }
  }

  getState(key: string): string | undefined {
    return (this.stmts.getState.get(key) as Row | undefined)?.value as string | undefined;
  }

  setState(key: string, value: string): void {
    this.stmts.setState.run(key, value);
  }

  // Scheduler (issue 4): every query is a range on a partial index, so an idle tick costs
  // microseconds however many requests are open.

  dueGiveUps(now: number, after: DueCursor | null, limit: number): Array<Pick<RequestRecord, 'id' | 'give_up_at'>> {
    return (after === null ? this.due.giveUps.all(now, limit) : this.due.giveUpsAfter.all(now, after.at, after.at, after.id, limit)) as Array<
      Pick<RequestRecord, 'id' | 'give_up_at'>
    >;
  }

  dueEscalations(now: number, after: DueCursor | null, limit: number): AskRecord[] {
    return (after === null ? this.due.escalations.all(now, limit) : this.due.escalationsAfter.all(now, after.at, after.at, after.id, limit)) as AskRecord[];
  }

  dueQueuedAsks(now: number): WaitingAsk[] {
    return this.due.queuedDue.all(now) as WaitingAsk[];
  }

  queuedAsks(expertIds: readonly string[] | null): WaitingAsk[] {
    if (expertIds === null) return this.due.queuedAll.all() as WaitingAsk[];
    return [...new Set(expertIds)].flatMap((id) => this.due.queuedOf.all(id) as WaitingAsk[]);
  }

  isMuted(expertId: string): boolean {
    return (this.due.muted.get(expertId) as { muted: number } | undefined)?.muted === 1;
  }

  heldRequests(): HeldRequest[] {
    return (this.due.held.all() as Row[]).map((r) => ({
      id: r.id as string,
      topic: r.topic as string,
      target_experts: r.target_experts === null ? null : JSON.parse(r.target_experts as string),
      created_at: r.created_at as number,
    }));
  }

  upsertConsumer(c: ConsumerRecord): void {
    this.stmts.upsertConsumer.run({
      ...c,
      handles_kinds: json(c.handles_kinds),
      delivery_type: c.delivery.type,
      delivery: json(c.delivery),
      auto_accept: c.auto_accept ? 1 : 0,
      kind_schemas: c.kind_schemas === null ? null : json(c.kind_schemas),
    });
  }

  getConsumer(id: string): ConsumerRecord | undefined {
    const row = this.stmts.getConsumer.get(id) as Row | undefined;
    return row && toConsumer(row);
  }

  listConsumers(): ConsumerRecord[] {
    return (this.stmts.listConsumers.all() as Row[]).map(toConsumer);
  }

  deleteConsumer(id: string): boolean {
    return this.stmts.deleteConsumer.run(id).changes === 1;
  }

  insertDelivery(d: DeliveryRecord): void {
    this.stmts.insertDelivery.run(d);
  }

  getDelivery(id: string): DeliveryRecord | undefined {
    return this.stmts.getDelivery.get(id) as DeliveryRecord | undefined;
  }

  listDeliveries(q: DeliveryQuery): DeliveryRecord[] {
    const { where, values } = whereClause([
      ['consumer_id = ?', q.consumer_id],
      ['state = ?', q.state],
      ['id < ?', q.before],
    ]);
    const sql = `SELECT ${DELIVERY_COLUMNS}, (SELECT type FROM events WHERE events.id = deliveries.event_id) AS event
      FROM deliveries ${where} ORDER BY id DESC LIMIT ?`;
    return this.prepareCached(sql).all(...values, q.limit) as DeliveryRecord[];
  }

  claimDeliveries(c: DeliveryClaim): DeliveryJob[] {
    // The dispatcher is woken after every commit; most find nothing due. A read on the partial index
    // answers that without the write the claim UPDATE would start.
    if ((this.stmts.anyDueDelivery.get(c.now) as { due: number }).due === 0) return [];
    const claimed = this.stmts.claimDeliveries.all({
      now: c.now,
      owner: c.owner,
      leaseUntil: c.leaseUntil,
      limit: c.limit,
      perConsumer: c.perConsumer,
      inFlight: json(c.inFlight),
      live: json(c.live),
    }) as DeliveryRecord[];
    if (claimed.length === 0) return [];
    const events = new Map(
      (this.stmts.eventBodies.all(json([...new Set(claimed.map((d) => d.event_id))])) as Row[]).map((r) => [r.id as string, r]),
    );
    return claimed
      .sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.id < b.id ? -1 : 1))
      .map((d) => ({ ...d, event_type: events.get(d.event_id)!.type as DeliveryJob['event_type'], body: events.get(d.event_id)!.body as string }));
  }

  finishDelivery(id: string, o: DeliveryOutcome): void {
    this.stmts.finishDelivery.run({ id, state: o.state, at: o.at, status: o.status, error: o.error, nextAttemptAt: o.nextAttemptAt ?? null });
  }

  dropPendingDeliveries(consumerId: string, _at: number): DeliveryRecord[] {
    const pending = this.stmts.pendingFor.all(consumerId) as DeliveryRecord[];
    this.stmts.dropPending.run(consumerId);
    return pending;
  }

  retryDelivery(id: string, now: number): void {
    this.stmts.retryDelivery.run(now, id);
  }

  insertLlmJob(job: LlmJobRecord): void {
    this.llm.insert.run({ ...job, proposal: job.proposal === null ? null : json(job.proposal) });
  }

  getLlmJob(id: string): LlmJobRecord | undefined {
    const row = this.llm.get.get(id) as Row | undefined;
    return row && toLlmJob(row);
  }

  claimLlmJobs(c: WorkClaim & { exclude: readonly string[] }): LlmJobRecord[] {
    return (this.llm.claim.all({ now: c.now, owner: c.owner, leaseUntil: c.leaseUntil, exclude: json(c.exclude), limit: c.limit }) as Row[])
      .map(toLlmJob)
      .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
  }

  expiredDrafts(now: number, limit: number): LlmJobRecord[] {
    return (this.llm.expired.all(now, limit) as Row[]).map(toLlmJob);
  }

  finishLlmJob(id: string, at: number): boolean {
    return this.llm.finish.run(at, id).changes === 1;
  }

  releaseLlmJob(id: string, owner: string): void {
    this.llm.release.run(id, owner);
  }
}

function toLlmJob(r: Row): LlmJobRecord {
  return {
    id: r.id as string,
    stage: r.stage as LlmJobRecord['stage'],
    request_id: r.request_id as string,
    proposal: r.proposal === null ? null : JSON.parse(r.proposal as string),
    state: r.state as LlmJobRecord['state'],
    attempts: r.attempts as number,
    deadline_at: r.deadline_at as number | null,
    created_at: r.created_at as number,
    finished_at: r.finished_at as number | null,
  };
}

/** The LLM job statements; the pending ones are ranges on the partial indexes of migration 4. */
function prepareLlmStatements(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insert: p(`INSERT INTO llm_jobs (id, stage, request_id, proposal, state, attempts, deadline_at, created_at, finished_at)
      VALUES (@id, @stage, @request_id, @proposal, @state, @attempts, @deadline_at, @created_at, @finished_at)`),
    get: p('SELECT * FROM llm_jobs WHERE id = ?'),
    claim: p(`UPDATE llm_jobs SET attempts = attempts + 1, claimed_by = @owner, lease_until = @leaseUntil WHERE id IN (
        SELECT id FROM llm_jobs INDEXED BY llm_jobs_pending WHERE state = 'pending'
          AND (deadline_at IS NULL OR deadline_at > @now) AND (lease_until IS NULL OR lease_until <= @now)
          AND id NOT IN (SELECT value FROM json_each(@exclude))
        ORDER BY created_at, id LIMIT @limit)
      RETURNING *`),
    expired: p(`SELECT * FROM llm_jobs INDEXED BY llm_jobs_deadline WHERE state = 'pending' AND deadline_at IS NOT NULL
      AND deadline_at <= ? ORDER BY deadline_at, id LIMIT ?`),
    finish: p(`UPDATE llm_jobs SET state = 'done', finished_at = ?, claimed_by = NULL, lease_until = NULL WHERE id = ? AND state = 'pending'`),
    release: p(`UPDATE llm_jobs SET claimed_by = NULL, lease_until = NULL WHERE id = ? AND claimed_by = ? AND state = 'pending'`),
    renew: p(`UPDATE llm_jobs SET lease_until = @leaseUntil WHERE id IN (SELECT value FROM json_each(@ids))
      AND state = 'pending' AND claimed_by = @owner`),
  };
}

/**
 * The scheduler's statements. The WHERE clauses repeat the partial indexes' conditions word for word
 * (`requests_give_up`, `asks_escalate`, `asks_send_after`, `asks_queued`, `requests_held`), and the
 * due-work ones pin their index (INDEXED BY): with 100,000 open requests a plan on `requests_status`
 * would read every one of them each tick. The keyset forms resume a scan after the last row handled.
 */
function prepareDueStatements(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  const OPEN = `status IN ('queued', 'asked', 'escalated')`;
  const WAITING = 'SELECT a.*, r.created_at AS request_created_at FROM asks a JOIN requests r ON r.id = a.request_id';
  const DUE_WAITING = WAITING.replace('asks a', 'asks a INDEXED BY asks_send_after');
  return {
    giveUps: p(`SELECT id, give_up_at FROM requests INDEXED BY requests_give_up WHERE ${OPEN} AND give_up_at <= ? ORDER BY give_up_at, id LIMIT ?`),
    giveUpsAfter: p(`SELECT id, give_up_at FROM requests INDEXED BY requests_give_up WHERE ${OPEN} AND give_up_at <= ? AND give_up_at >= ?
      AND (give_up_at > ? OR id > ?) ORDER BY give_up_at, id LIMIT ?`),
    escalations: p(`SELECT * FROM asks INDEXED BY asks_escalate WHERE state = 'open' AND escalate_at <= ? ORDER BY escalate_at, id LIMIT ?`),
    escalationsAfter: p(`SELECT * FROM asks INDEXED BY asks_escalate WHERE state = 'open' AND escalate_at <= ? AND escalate_at >= ?
      AND (escalate_at > ? OR id > ?) ORDER BY escalate_at, id LIMIT ?`),
    // Asks of a request whose question is still being drafted are not waiting work yet (the draft's end places them).
    queuedDue: p(`${DUE_WAITING} WHERE a.state = 'queued' AND a.send_after <= ? AND r.drafting = 0`),
    queuedAll: p(`${WAITING} WHERE a.state = 'queued' AND r.drafting = 0`),
    queuedOf: p(`${WAITING} WHERE a.expert_id = ? AND a.state = 'queued' AND r.drafting = 0`),
    muted: p('SELECT muted FROM expert_state WHERE expert_id = ?'),
    held: p(`SELECT id, topic, target_experts, created_at FROM requests r WHERE held = 1
      AND NOT EXISTS (SELECT 1 FROM asks a WHERE a.request_id = r.id AND a.state IN ('queued', 'open'))
      ORDER BY created_at, id`),
  };
}
