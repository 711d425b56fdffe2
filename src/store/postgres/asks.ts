import { type AskRecord, type AwayState, type ExpertLiveState } from '../../domain/records.js';
import type { AskCaps, AskPatch, AskRepository, DueCursor, WaitingAsk } from '../store.js';
import { ExpertStateMemo } from '../expert-state-memo.js';
import { awayValues, byRequest, liveAway, toAway, toLiveState } from '../row-records.js';
import { all, type Db, one, run, write } from './sql.js';
import { SQL } from './asks-sql.js';
import { askValues } from '../shared/asks-sql.js';
import type { LoadHints } from './load-hints.js';

/** One expert given asks on a hint, and the tightest caps those asks were sent under (null: none). */
export interface HintCheck extends AskCaps {
  expertId: string;
  /** The start of the expert's day (their asks today count from it). */
  dayStart: number;
}

/**
 * Asks and the live state of experts they make up, in PostgreSQL. Inside a transaction (`locking`),
 * reading an ask locks its row, and reading experts' live state locks each expert, so routing in two
 * instances at once cannot both take an expert's last free slot. A transaction that routes
 * optimistically (`useHints`) reads unlocked, or from this instance's `hints`, the states it only
 * weighs, and checks at commit the experts it gave asks (`checkPlaced`).
 */
export class PgAsks implements AskRepository {
  /** Inside a transaction: the live states read so far (each settled one locked until commit). */
  readonly memo = new ExpertStateMemo();
  private hinting = false;
  /** Some ask changed (whose expert this does not know): every hint is stale at commit. */
  private asksChanged = false;
  /** Experts whose mute or away this transaction changed. */
  private readonly changed = new Set<string>();
  /** The experts given asks here, with the tightest caps their asks were sent under, and the earliest `now`. */
  private readonly placed = new Map<string, AskCaps>();
  private placedAt = Infinity;

  /**
   * `hints`: this instance's, kept up to date by `finish`; `hintsAllowed` false makes `useHints` a
   * no-op (the last attempt of a transaction run again reads every state settled, so it cannot race).
   */
  constructor(
    private readonly db: Db,
    private readonly locking: boolean,
    private readonly hints: LoadHints | null = null,
    private readonly hintsAllowed = true,
  ) {}

  useHints(): void {
    this.hinting = this.locking && this.hints !== null && this.hintsAllowed;
  }

  placedUnder(expertId: string, caps: AskCaps, now: number): void {
    if (!this.hinting || this.memo.isSettled(expertId)) return;
    const kept = this.placed.get(expertId);
    const tighter = (a: number | null, b: number | null | undefined) => (b == null ? a : a === null ? b : Math.min(a, b));
    this.placed.set(expertId, { maxOpenAsks: tighter(caps.maxOpenAsks, kept?.maxOpenAsks), maxAsksToday: tighter(caps.maxAsksToday, kept?.maxAsksToday) });
    this.placedAt = Math.min(this.placedAt, now);
  }

  /**
   * Before commit, in a transaction that routed on hints: has the commit check each expert given asks
   * while their state here was a hint (`checkAtCommit`), with the caps their asks were sent under.
   */
  checkPlaced(): void {
    if (!this.hinting) return;
    const checks: HintCheck[] = this.memo.placedOnHints().map((expertId) => ({
      expertId,
      dayStart: this.memo.hintDay(expertId)!,
      maxOpenAsks: this.placed.get(expertId)?.maxOpenAsks ?? null,
      maxAsksToday: this.placed.get(expertId)?.maxAsksToday ?? null,
    }));
    this.checkAtCommit(checks, this.placedAt === Infinity ? Date.now() : this.placedAt);
  }

  /** Locks the experts and sends the check (`SQL.checkHints`) to run just before the commit. */
  checkAtCommit(checks: readonly HintCheck[], now: number): void {
    if (!this.locking || checks.length === 0) return;
    const ids = checks.map((c) => c.expertId);
    const days = new Map(checks.map((c) => [c.expertId, c.dayStart]));
    const db = this.db;
    if (!db.send || !db.sendThen) throw new Error('checkAtCommit needs a transaction');
    db.send(SQL.lockExperts, [[...ids].sort()]);
    const caps = (n: number | null) => (n !== null && Number.isFinite(n) ? n : null);
    const values = [ids, checks.map((c) => c.dayStart), checks.map((c) => caps(c.maxOpenAsks)), checks.map((c) => caps(c.maxAsksToday)), now];
    db.sendThen(SQL.checkHints, values, (rows) => {
      for (const r of rows) this.memo.keepSettled(r.expert_id as string, toLiveState(r), days.get(r.expert_id as string)!);
    });
  }

  /**
   * After the transaction: committed, the settled states (exact at commit) become this instance's
   * hints, and what it changed otherwise is dropped from them; rolled back, the experts it read
   * settled or acted on are dropped, so running it again reads them anew.
   */
  finish(committed: boolean): void {
    const hints = this.hints;
    if (!hints || !this.locking) return;
    const settled = this.memo.settledStates();
    if (!committed) {
      for (const { id } of settled) hints.drop(id);
      for (const id of this.memo.placedOnHints()) hints.drop(id);
    } else {
      if (this.asksChanged) hints.drop();
      for (const { id, state, day } of settled) hints.put(id, state, day);
    }
    for (const id of this.changed) hints.drop(id);
  }

  async insert(ask: AskRecord): Promise<void> {
    if (this.hinting && !this.memo.isSettled(ask.expert_id)) this.placedAt = Math.min(this.placedAt, ask.created_at);
    this.memo.added(ask);
    await write(this.db, SQL.insert, askValues(ask));
  }

  async update(id: string, patch: AskPatch): Promise<void> {
    const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return;
    this.memo.forget();
    this.asksChanged = true;
    const sets = entries.map(([k], i) => `${k} = $${i + 1}`).join(', ');
    await write(this.db, `UPDATE asks SET ${sets} WHERE id = $${entries.length + 1}`, [...entries.map(([, v]) => v), id]);
  }

  async get(id: string): Promise<AskRecord | undefined> {
    return (await one(this.db, `${SQL.get}${this.locking ? ' FOR UPDATE' : ''}`, [id])) as AskRecord | undefined;
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

  async expertStates(
    ids: readonly string[] | null,
    dayStart: number,
    dayStarts?: ReadonlyMap<string, number>,
    settled = false,
  ): Promise<Map<string, ExpertLiveState>> {
    const states = new Map<string, ExpertLiveState>();
    const dayOf = (id: string) => dayStarts?.get(id) ?? dayStart;
    if (ids !== null) {
      const unique = [...new Set(ids)];
      if (!this.locking) return this.readStates(unique, dayOf);
      if (this.hinting && !settled) return this.memo.get(unique, dayOf, (missing) => this.readHints(missing, dayOf), false);
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
    this.changed.add(expertId);
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

  /** Hints for `ids`: this instance's where it has one, the others read without their locks (and kept as hints). */
  private async readHints(ids: readonly string[], dayOf: (id: string) => number): Promise<Map<string, ExpertLiveState>> {
    const { found, missing } = this.hints!.take(ids, dayOf);
    if (missing.length === 0) return found;
    for (const [id, state] of await this.readStates(missing, dayOf)) {
      this.hints!.put(id, state, dayOf(id));
      found.set(id, state);
    }
    return found;
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
