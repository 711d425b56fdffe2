import type Database from 'better-sqlite3';
import type { ExpertStateMemo } from '../expert-state-memo.js';
import type { AskRecord, AwayState, ExpertLiveState } from '../../domain/records.js';
import type { AskPatch, AskRepository, DueCursor, WaitingAsk } from '../store.js';
import { byRequest } from '../row-records.js';
import { awayValues, prepareAll, type Row, statementCache, toAway, toLiveState } from './rows.js';
import { ASKS, askValues, WAITING_ASKS } from '../shared/asks-sql.js';

/**
 * The scheduler's statements repeat the partial indexes' conditions word for word (`asks_escalate`,
 * `asks_send_after`, `asks_queued`), and the due-work ones pin their index (INDEXED BY): a plan on
 * another index would read every open ask each tick. The keyset form resumes a scan after the last
 * row handled.
 */
const DUE_WAITING = WAITING_ASKS.replace('asks a', 'asks a INDEXED BY asks_send_after');

function prepare(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    ...prepareAll(db, ASKS),
    listForMany: p('SELECT * FROM asks WHERE request_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, id'),
    // One expert: each query is a range on an index of asks.
    oneState: p(`SELECT
        (SELECT COUNT(*) FROM asks WHERE expert_id = @id AND state = 'open') AS open,
        (SELECT COUNT(*) FROM asks WHERE expert_id = @id AND state = 'queued') AS queued,
        (SELECT COUNT(*) FROM asks WHERE expert_id = @id AND sent_at >= @dayStart) AS today,
        s.muted, s.away_until, s.away_delegate, s.away_note, s.away_set_by, s.away_set_at
        FROM (SELECT 1) LEFT JOIN expert_state AS s ON s.expert_id = @id`),
    // Every expert: scans only live asks (partial index).
    allLive: p(`SELECT expert_id, SUM(state = 'open') AS open, SUM(state = 'queued') AS queued FROM asks
        WHERE state IN ('open', 'queued') GROUP BY expert_id`),
    // Every expert's asks today: the asks sent since the earliest day start, one range read from the
    // index alone (\`asks_sent_expert\`), each counted against its expert's own day start.
    sentSince: p('SELECT expert_id, sent_at FROM asks WHERE sent_at >= ?').raw(),
    allMuted: p('SELECT expert_id FROM expert_state WHERE muted = 1'),
    awayOf: p('SELECT * FROM expert_state WHERE expert_id = ? AND away_until IS NOT NULL'),
    escalations: p(`SELECT * FROM asks INDEXED BY asks_escalate WHERE state = 'open' AND escalate_at <= ? ORDER BY escalate_at, id LIMIT ?`),
    escalationsAfter: p(`SELECT * FROM asks INDEXED BY asks_escalate WHERE state = 'open' AND escalate_at <= ? AND escalate_at >= ?
      AND (escalate_at > ? OR id > ?) ORDER BY escalate_at, id LIMIT ?`),
    // Asks of a request whose question is still being drafted are not waiting work yet (the draft's end places them).
    queuedDue: p(`${DUE_WAITING} WHERE a.state = 'queued' AND a.send_after <= ? AND r.drafting = 0`),
  };
}

/** Asks and the live state of experts they make up, in SQLite. */
export class SqliteAsks implements AskRepository {
  private readonly stmts: ReturnType<typeof prepare>;
  private readonly prepareCached: (sql: string) => Database.Statement;

  /**
   * `memo`: on the writing connection, the states read inside the current transaction (the store
   * starts each transaction with it forgotten); none for reads outside transactions.
   */
  constructor(
    db: Database.Database,
    readonly memo: ExpertStateMemo | null = null,
  ) {
    this.stmts = prepare(db);
    this.prepareCached = statementCache(db);
  }

  /** One process writes: every state read inside a transaction is exact, so there is nothing to check at commit. */
  placedUnder(): void {}

  async insert(ask: AskRecord): Promise<void> {
    this.memo?.added(ask);
    this.stmts.insert.run(...askValues(ask));
  }

  async update(id: string, patch: AskPatch): Promise<void> {
    const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return;
    this.memo?.forget();
    this.prepareCached(`UPDATE asks SET ${entries.map(([k]) => `${k} = ?`).join(', ')} WHERE id = ?`).run(...entries.map(([, v]) => v), id);
  }

  async get(id: string): Promise<AskRecord | undefined> {
    return this.stmts.get.get(id) as AskRecord | undefined;
  }

  async listFor(requestId: string): Promise<AskRecord[]> {
    return this.stmts.listFor.all(requestId) as AskRecord[];
  }

  async listForMany(requestIds: readonly string[]): Promise<Map<string, AskRecord[]>> {
    return byRequest(this.stmts.listForMany.all(JSON.stringify(requestIds)) as AskRecord[]);
  }

  async findForReply(expertId: string, requestId: string | null): Promise<AskRecord | undefined> {
    return (
      requestId === null ? this.stmts.oldestOpenAsk.get(expertId) : this.stmts.askOnRequest.get(expertId, requestId)
    ) as AskRecord | undefined;
  }

  async openOf(expertId: string): Promise<AskRecord[]> {
    return this.stmts.openOf.all(expertId) as AskRecord[];
  }

  async expertStates(ids: readonly string[] | null, dayStart: number, dayStarts?: ReadonlyMap<string, number>): Promise<Map<string, ExpertLiveState>> {
    const states = new Map<string, ExpertLiveState>();
    const dayOf = (id: string) => dayStarts?.get(id) ?? dayStart;
    if (ids !== null) {
      const read = async (missing: readonly string[]) => {
        for (const id of missing) {
          const r = this.stmts.oneState.get({ id, dayStart: dayOf(id) }) as Row;
          states.set(id, toLiveState(r));
        }
        return states;
      };
      const unique = [...new Set(ids)];
      return this.memo ? this.memo.get(unique, dayOf, read) : read(unique);
    }
    const get = (id: string) => {
      let s = states.get(id);
      if (!s) states.set(id, (s = { muted: false, openAsks: 0, queuedAsks: 0, asksToday: 0, away: null }));
      return s;
    };
    for (const r of this.stmts.allLive.all() as Row[]) {
      const s = get(r.expert_id as string);
      s.openAsks = r.open as number;
      s.queuedAsks = r.queued as number;
    }
    const earliest = Math.min(dayStart, ...(dayStarts?.values() ?? []));
    for (const [expertId, sentAt] of this.stmts.sentSince.all(earliest) as Array<[string, number]>) {
      if (sentAt >= dayOf(expertId)) get(expertId).asksToday++;
    }
    for (const r of this.stmts.allMuted.all() as Row[]) get(r.expert_id as string).muted = true;
    for (const r of this.stmts.allAway.all() as Row[]) get(r.expert_id as string).away = toAway(r);
    return states;
  }

  async setMuted(expertId: string, muted: boolean, at: number): Promise<void> {
    this.memo?.forget(expertId);
    this.stmts.setMuted.run(expertId, muted ? 1 : 0, at);
  }

  async isMuted(expertId: string): Promise<boolean> {
    return (this.stmts.muted.get(expertId) as { muted: number } | undefined)?.muted === 1;
  }

  async aways(expertIds: readonly string[] | null): Promise<Map<string, AwayState>> {
    const rows = expertIds === null ? (this.stmts.allAway.all() as Row[]) : [...new Set(expertIds)].flatMap((id) => this.stmts.awayOf.all(id) as Row[]);
    return new Map(rows.map((r) => [r.expert_id as string, toAway(r)]));
  }

  async dueAways(now: number): Promise<Array<{ expert_id: string; until: number }>> {
    return (this.stmts.dueAways.all(now) as Row[]).map((r) => ({ expert_id: r.expert_id as string, until: r.away_until as number }));
  }

  async setAway(expertId: string, away: AwayState | null, at: number): Promise<void> {
    this.memo?.forget(expertId);
    this.stmts.setAway.run(expertId, at, ...awayValues(away));
  }

  async endAway(expertId: string, until: number, at: number): Promise<boolean> {
    this.memo?.forget(expertId);
    return this.stmts.endAway.run(at, expertId, until).changes > 0;
  }

  // Scheduler (issue 4): every query is a range on a partial index, so an idle tick costs
  // microseconds however many asks are open.

  async dueEscalations(now: number, after: DueCursor | null, limit: number): Promise<AskRecord[]> {
    return (after === null ? this.stmts.escalations.all(now, limit) : this.stmts.escalationsAfter.all(now, after.at, after.at, after.id, limit)) as AskRecord[];
  }

  async dueQueued(now: number): Promise<WaitingAsk[]> {
    return this.stmts.queuedDue.all(now) as WaitingAsk[];
  }

  async queued(expertIds: readonly string[] | null): Promise<WaitingAsk[]> {
    if (expertIds === null) return this.stmts.queuedAll.all() as WaitingAsk[];
    return [...new Set(expertIds)].flatMap((id) => this.stmts.queuedOf.all(id) as WaitingAsk[]);
  }
}
