import type { AskRecord, AwayState, ExpertLiveState } from '../../domain/records.js';
import type { AskPatch, AskRepository, DueCursor, WaitingAsk } from '../store.js';
import { ExpertStateMemo } from '../expert-state-memo.js';
import { awayValues, byRequest, liveAway, toAway, toLiveState } from '../row-records.js';
import { all, type Db, one, run, write } from './sql.js';

/**
 * The scheduler's statements repeat the partial indexes' conditions word for word (`asks_escalate`,
 * `asks_send_after`, `asks_queued`), so the planner can use them: a plan on another index would read
 * every open ask each tick. The keyset form resumes a scan after the last row handled.
 */
const WAITING = 'SELECT a.*, r.created_at AS request_created_at FROM asks a JOIN requests r ON r.id = a.request_id';

const SQL = {
  insert: `INSERT INTO asks (id, request_id, expert_id, state, via, created_at, sent_at, escalate_at, closed_at, send_after, instructions)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
  listFor: 'SELECT * FROM asks WHERE request_id = $1 ORDER BY created_at, id',
  listForMany: 'SELECT * FROM asks WHERE request_id = ANY($1::text[]) ORDER BY created_at, id',
  askOnRequest: `SELECT * FROM asks WHERE expert_id = $1 AND request_id = $2
      ORDER BY CASE state WHEN 'open' THEN 0 WHEN 'escalated' THEN 1 ELSE 2 END, created_at DESC LIMIT 1`,
  oldestOpenAsk: `SELECT * FROM asks WHERE expert_id = $1 AND state = 'open' ORDER BY sent_at, id LIMIT 1`,
  openOf: `SELECT * FROM asks WHERE expert_id = $1 AND state = 'open' ORDER BY sent_at, id`,
  // Several experts in one round trip (routing reads every candidate of a topic). Sent today = live
  // asks sent today + closed asks sent today: each expert's live asks are read once, for all three counts.
  someStates: `SELECT e.id AS expert_id, live.open, live.queued, live.today + closed.today AS today,
      s.muted, s.away_until, s.away_delegate, s.away_note, s.away_set_by, s.away_set_at
    FROM unnest($1::text[], $2::bigint[]) AS e(id, day_start)
    CROSS JOIN LATERAL (SELECT COUNT(*) FILTER (WHERE state = 'open') AS open, COUNT(*) FILTER (WHERE state = 'queued') AS queued,
        COUNT(*) FILTER (WHERE sent_at >= e.day_start) AS today
      FROM asks WHERE expert_id = e.id AND state IN ('open', 'queued')) AS live
    CROSS JOIN LATERAL (SELECT COUNT(*) AS today FROM asks
      WHERE expert_id = e.id AND sent_at >= e.day_start AND state NOT IN ('open', 'queued')) AS closed
    LEFT JOIN expert_state AS s ON s.expert_id = e.id`,
  // The shared "every expert" lock, then each expert's, in the order given (sorted by the caller), in
  // one statement (a projection's columns are computed left to right).
  lockExperts: `SELECT pg_advisory_xact_lock_shared(hashtextextended('experts:all', 0)) AS shared,
    (SELECT COUNT(pg_advisory_xact_lock(hashtextextended('expert:' || id, 0)))
      FROM (SELECT id FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n) ORDER BY n OFFSET 0) AS sorted) AS experts`,
  // One expert's lock, as routing takes it: changing whether they can be asked waits for routing to
  // them in progress, and routing after it reads the change.
  lockExpert: `SELECT pg_advisory_xact_lock_shared(hashtextextended('experts:all', 0)) AS shared,
    pg_advisory_xact_lock(hashtextextended('expert:' || $1, 0)) AS expert`,
  // Every expert's open and queued asks (the live asks' index), asks today, mute and away, in one
  // statement: one connection and one round trip where four reads side by side took four of each. $1 is
  // the earliest of the day starts, so the range stays on the sent_at index; $2 holds the experts whose
  // day starts elsewhere (their own time zone), $3 everyone else's day start.
  allStates: `SELECT
      (SELECT COALESCE(json_agg(json_build_array(expert_id, open, queued)), '[]') FROM (SELECT expert_id,
        COUNT(*) FILTER (WHERE state = 'open') AS open, COUNT(*) FILTER (WHERE state = 'queued') AS queued
        FROM asks WHERE state IN ('open', 'queued') GROUP BY expert_id) live) AS live,
      (SELECT COALESCE(json_agg(json_build_array(expert_id, today)), '[]') FROM (SELECT expert_id, COUNT(*) AS today
        FROM asks WHERE sent_at >= $1 AND sent_at >= COALESCE(($2::jsonb ->> expert_id)::bigint, $3) GROUP BY expert_id) today) AS today,
      (SELECT COALESCE(json_agg(kept), '[]') FROM (SELECT expert_id, muted, away_until, away_delegate, away_note, away_set_by, away_set_at
        FROM expert_state WHERE muted = 1 OR away_until IS NOT NULL) kept) AS kept`,
  setMuted: `INSERT INTO expert_state (expert_id, muted, updated_at) VALUES ($1, $2, $3)
      ON CONFLICT (expert_id) DO UPDATE SET muted = excluded.muted, updated_at = excluded.updated_at`,
  muted: 'SELECT muted FROM expert_state WHERE expert_id = $1',
  someAway: 'SELECT * FROM expert_state WHERE expert_id = ANY($1::text[]) AND away_until IS NOT NULL',
  allAway: 'SELECT * FROM expert_state WHERE away_until IS NOT NULL',
  dueAways: 'SELECT expert_id, away_until FROM expert_state WHERE away_until IS NOT NULL AND away_until <= $1 ORDER BY away_until, expert_id',
  setAway: `INSERT INTO expert_state (expert_id, muted, updated_at, away_until, away_delegate, away_note, away_set_by, away_set_at)
      VALUES ($1, 0, $2, $3, $4, $5, $6, $7)
      ON CONFLICT (expert_id) DO UPDATE SET updated_at = excluded.updated_at, away_until = excluded.away_until,
        away_delegate = excluded.away_delegate, away_note = excluded.away_note, away_set_by = excluded.away_set_by, away_set_at = excluded.away_set_at`,
  // Two instances ending the same spell: the second waits for the first's row lock, then finds it cleared.
  endAway: `UPDATE expert_state SET away_until = NULL, away_delegate = NULL, away_note = NULL, away_set_by = NULL, away_set_at = NULL, updated_at = $1
      WHERE expert_id = $2 AND away_until = $3`,
  escalations: `SELECT * FROM asks WHERE state = 'open' AND escalate_at <= $1 ORDER BY escalate_at, id LIMIT $2`,
  escalationsAfter: `SELECT * FROM asks WHERE state = 'open' AND escalate_at <= $1 AND escalate_at >= $2
      AND (escalate_at > $2 OR id > $3) ORDER BY escalate_at, id LIMIT $4`,
  // Asks of a request whose question is still being drafted are not waiting work yet (the draft's end places them).
  queuedDue: `${WAITING} WHERE a.state = 'queued' AND a.send_after <= $1 AND r.drafting = 0`,
  queuedAll: `${WAITING} WHERE a.state = 'queued' AND r.drafting = 0`,
  queuedOf: `${WAITING} WHERE a.expert_id = $1 AND a.state = 'queued' AND r.drafting = 0`,
};

/**
 * Asks and the live state of experts they make up, in PostgreSQL. Inside a transaction (`locking`),
 * reading an ask locks its row, and reading experts' live state locks each expert, so routing in two
 * instances at once cannot both take an expert's last free slot.
 */
export class PgAsks implements AskRepository {
  /** Inside a transaction: the live states read so far (each expert locked until commit). */
  readonly memo = new ExpertStateMemo();

  constructor(
    private readonly db: Db,
    private readonly locking: boolean,
  ) {}

  async insert(ask: AskRecord): Promise<void> {
    this.memo.added(ask);
    await write(this.db, SQL.insert, [
      ask.id, ask.request_id, ask.expert_id, ask.state, ask.via, ask.created_at, ask.sent_at, ask.escalate_at, ask.closed_at, ask.send_after,
      ask.instructions ?? null,
    ]);
  }

  async update(id: string, patch: AskPatch): Promise<void> {
    const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return;
    this.memo.forget();
    const sets = entries.map(([k], i) => `${k} = $${i + 1}`).join(', ');
    await write(this.db, `UPDATE asks SET ${sets} WHERE id = $${entries.length + 1}`, [...entries.map(([, v]) => v), id]);
  }

  async get(id: string): Promise<AskRecord | undefined> {
    return (await one(this.db, `SELECT * FROM asks WHERE id = $1${this.locking ? ' FOR UPDATE' : ''}`, [id])) as AskRecord | undefined;
  }

  async listFor(requestId: string): Promise<AskRecord[]> {
    return this.rows<AskRecord>(SQL.listFor, [requestId]);
  }

  async listForMany(requestIds: readonly string[]): Promise<Map<string, AskRecord[]>> {
    return byRequest(await this.rows<AskRecord>(SQL.listForMany, [requestIds]));
  }

  async findForReply(expertId: string, requestId: string | null): Promise<AskRecord | undefined> {
    const row = requestId === null ? await one(this.db, SQL.oldestOpenAsk, [expertId]) : await one(this.db, SQL.askOnRequest, [expertId, requestId]);
    return row as AskRecord | undefined;
  }

  async openOf(expertId: string): Promise<AskRecord[]> {
    return this.rows<AskRecord>(SQL.openOf, [expertId]);
  }

  async expertStates(ids: readonly string[] | null, dayStart: number, dayStarts?: ReadonlyMap<string, number>): Promise<Map<string, ExpertLiveState>> {
    const states = new Map<string, ExpertLiveState>();
    const dayOf = (id: string) => dayStarts?.get(id) ?? dayStart;
    if (ids !== null) {
      const unique = [...new Set(ids)];
      if (!this.locking) return this.readStates(unique, dayOf);
      return this.memo.get(unique, dayOf, async (missing) => {
        // Routing decides on these counts and then writes asks: each expert's lock is held until commit,
        // so another instance routing to the same expert reads the counts after this one's asks. Taken
        // in sorted order, so two transactions locking overlapping experts never wait on each other in a cycle.
        // Routing to some experts shares the "every expert" lock that a pass over all of them (below) takes alone.
        await write(this.db, SQL.lockExperts, [[...missing].sort()]);
        return this.readStates(missing, dayOf);
      });
    }
    // A pass over every expert (the scheduler placing waiting work) decides for all of them: it waits
    // for routing in progress anywhere and holds it off until commit.
    if (this.locking) await write(this.db, `SELECT pg_advisory_xact_lock(hashtextextended('experts:all', 0))`);
    const get = (id: string) => {
      let s = states.get(id);
      if (!s) states.set(id, (s = { muted: false, openAsks: 0, queuedAsks: 0, asksToday: 0, away: null }));
      return s;
    };
    const earliest = Math.min(dayStart, ...(dayStarts?.values() ?? []));
    const row = await one(this.db, SQL.allStates, [earliest, JSON.stringify(Object.fromEntries(dayStarts ?? [])), dayStart]);
    type Cell = string | number | null;
    for (const [id, open, queued] of row!.live as Cell[][]) {
      const s = get(id as string);
      s.openAsks = Number(open);
      s.queuedAsks = Number(queued);
    }
    for (const [id, today] of row!.today as Cell[][]) get(id as string).asksToday = Number(today);
    for (const kept of row!.kept as Array<Record<string, Cell>>) {
      const s = get(kept.expert_id as string);
      s.muted = kept.muted === 1;
      s.away = liveAway(kept);
    }
    return states;
  }

  async setMuted(expertId: string, muted: boolean, at: number): Promise<void> {
    await this.lockFor(expertId);
    await write(this.db, SQL.setMuted, [expertId, muted ? 1 : 0, at]);
  }

  async isMuted(expertId: string): Promise<boolean> {
    return (await one(this.db, SQL.muted, [expertId]))?.muted === 1;
  }

  async aways(expertIds: readonly string[] | null): Promise<Map<string, AwayState>> {
    const rows = expertIds === null ? await all(this.db, SQL.allAway) : await all(this.db, SQL.someAway, [[...new Set(expertIds)]]);
    return new Map(rows.map((r) => [r.expert_id as string, toAway(r)]));
  }

  async dueAways(now: number): Promise<Array<{ expert_id: string; until: number }>> {
    return (await all(this.db, SQL.dueAways, [now])).map((r) => ({ expert_id: r.expert_id as string, until: r.away_until as number }));
  }

  async setAway(expertId: string, away: AwayState | null, at: number): Promise<void> {
    await this.lockFor(expertId);
    await write(this.db, SQL.setAway, [expertId, at, ...awayValues(away)]);
  }

  async endAway(expertId: string, until: number, at: number): Promise<boolean> {
    await this.lockFor(expertId);
    return (await run(this.db, SQL.endAway, [at, expertId, until])) > 0;
  }

  /**
   * Before changing whether an expert can be asked (mute, away): takes their lock as routing does, so
   * an instance that read them as free and is placing an ask commits first, and this transaction's
   * reads after the change (their open asks, to pass on) see that ask.
   */
  private async lockFor(expertId: string): Promise<void> {
    this.memo.forget(expertId);
    if (this.locking) await write(this.db, SQL.lockExpert, [expertId]);
  }

  // Scheduler (issue 4): every query is a range on a partial index, so an idle tick costs little
  // however many asks are open.

  async dueEscalations(now: number, after: DueCursor | null, limit: number): Promise<AskRecord[]> {
    return after === null ? this.rows<AskRecord>(SQL.escalations, [now, limit]) : this.rows<AskRecord>(SQL.escalationsAfter, [now, after.at, after.id, limit]);
  }

  async dueQueued(now: number): Promise<WaitingAsk[]> {
    return this.rows<WaitingAsk>(SQL.queuedDue, [now]);
  }

  async queued(expertIds: readonly string[] | null): Promise<WaitingAsk[]> {
    if (expertIds === null) return this.rows<WaitingAsk>(SQL.queuedAll);
    const lists = [];
    for (const id of new Set(expertIds)) lists.push(await this.rows<WaitingAsk>(SQL.queuedOf, [id]));
    return lists.flat();
  }

  private async readStates(ids: readonly string[], dayOf: (id: string) => number): Promise<Map<string, ExpertLiveState>> {
    const states = new Map<string, ExpertLiveState>();
    for (const r of await all(this.db, SQL.someStates, [ids, ids.map(dayOf)])) {
      states.set(r.expert_id as string, toLiveState(r));
    }
    return states;
  }

  /** Rows as records: every column of `asks` maps to its field as it is (BIGINT parsed to numbers). */
  private async rows<T>(text: string, values: unknown[] = []): Promise<T[]> {
    return (await this.db.query(text, values)).rows as T[];
  }
}
