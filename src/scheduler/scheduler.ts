import type { ExpertRegistry } from '../core/expert-registry.js';
import { nextDayStartOfAny, type Engine, type Routing } from '../service/engine/index.js';
import { endDueAways } from '../service/experts/index.js';
import { mayRemind, noteOverdueCards, remindReviewers } from '../service/review/index.js';
import { isWaiting, type AskRecord, type FailureCode, type RequestRecord } from '../domain/records.js';
import { StorageUnavailable } from '../store/errors.js';
import type { DueCursor, Reads, Tx } from '../store/store.js';
import type { TickResult, TimedWork } from '../service/operations/index.js';
import { escalateAsk, guarded, mayPlace, placeWaiting, type WakeScope } from '../service/routing/index.js';
import { giveUp, warnExpiring } from '../service/requests/index.js';

export interface SchedulerOptions {
  /** Due rows handled per transaction (one commit, one fsync, per batch). */
  batchSize?: number;
  /** Escalations plus give-ups per tick; the rest wait for the next tick, so one tick never blocks for long. */
  maxPerTick?: number;
}

/** One kind of due work: how to find it, page through it, do it and count it. */
interface Drain<T, R> {
  budget: number;
  now: number;
  /** Experts released by committed work, for the waiting-work pass at the end of the tick. */
  freed: Set<string>;
  due: (reads: Reads, after: DueCursor | null, limit: number) => Promise<T[]>;
  cursorOf: (row: T) => DueCursor;
  requestOf: (row: T) => string;
  work: (tx: Tx, row: T, freed: Set<string>) => Promise<R>;
  done: (result: R) => void;
}


/**
 * Acts on everything that happens because time passed. Deadlines
 * are absolute timestamps in the database (`give_up_at`, `escalate_at`, `send_after`), and each tick
 * asks the indexes what is due at `now`, so a late tick catches up and a restart loses nothing. The
 * only memory kept here is a hint about what could have changed: the start of the next local day
 * (caps reset) and the registry last seen. Both start "unknown", so the first tick after a start
 * re-checks all waiting work.
 *
 * Order within a tick: give-ups first (a request past `give_up_after` fails rather than escalates or
 * warns), then warnings of requests about to give up, then escalations, then waiting work, so capacity released by the first two is used in the same tick.
 */
export class Scheduler implements TimedWork {
  private readonly batchSize: number;
  private readonly maxPerTick: number;
  private nextDayStart = Number.NEGATIVE_INFINITY;
  private registry: ExpertRegistry | null = null;

  constructor(
    private readonly engine: Routing & Pick<Engine, 'store' | 'review' | 'counters'>,
    options: SchedulerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 1_000;
    this.maxPerTick = options.maxPerTick ?? 5_000;
  }

  async tick(now: number): Promise<TickResult> {
    const result: TickResult = { timed_out: 0, rate_limited: 0, warned: 0, escalated: 0, sent: 0, placed: 0, more: false, reminded: false };
    const freed = new Set<string>();
    const store = this.engine.store;
    let budget = this.maxPerTick;

    budget -= await this.drain<Pick<RequestRecord, 'id' | 'give_up_at'>, FailureCode | null>({
      budget,
      now,
      freed,
      due: (tx, after, limit) => tx.requests.dueGiveUps(now, after, limit),
      cursorOf: (r) => ({ at: r.give_up_at, id: r.id }),
      requestOf: (r) => r.id,
      work: async (tx, r, batchFreed) => {
        // Read again under the request's lock: another instance may have acted on it since the due-work read.
        const request = await tx.requests.get(r.id);
        if (!request || !isWaiting(request) || request.give_up_at > now) return null;
        return giveUp(this.engine, tx, request, now, batchFreed);
      },
      done: (code) => (code === 'rate_limited' ? result.rate_limited++ : code === 'timeout' ? result.timed_out++ : undefined),
    });
    budget -= await this.drain<{ id: string; warn_at: number }, boolean>({
      budget,
      now,
      freed,
      due: (tx, after, limit) => tx.requests.dueWarnings(now, after, limit),
      cursorOf: (r) => ({ at: r.warn_at, id: r.id }),
      requestOf: (r) => r.id,
      work: (tx, r) => warnExpiring(this.engine, tx, r.id, now),
      done: (warned) => (warned ? result.warned++ : undefined),
    });
    budget -= await this.drain<AskRecord, boolean>({
      budget,
      now,
      freed,
      due: (tx, after, limit) => tx.asks.dueEscalations(now, after, limit),
      cursorOf: (a) => ({ at: a.escalate_at!, id: a.id }),
      requestOf: (a) => a.request_id,
      work: (tx, a, batchFreed) => escalateAsk(this.engine, tx, a, now, batchFreed),
      done: (escalated) => (escalated ? result.escalated++ : undefined),
    });
    result.more = budget <= 0;

    // Away spells that have ended: those experts' waiting work gets its chance below.
    for (const id of await endDueAways(this.engine, now)) freed.add(id);
    // Each step looks first with a read and opens a transaction only when there is work: an idle tick writes nothing.
    const scope = this.wakeScope(now, freed);
    if (await mayPlace(store, scope, now)) {
      const placed = await store.transaction((tx) => placeWaiting(this.engine, tx, scope, now));
      result.sent = placed.sent;
      result.placed = placed.placed;
    }
    // Reviewers: one reminder when the queue's oldest proposal waits too long; cards past give-up say so.
    if (this.engine.review.channel !== null || (await mayRemind(this.engine, now))) {
      result.reminded = await store.transaction(async (tx) => {
        await noteOverdueCards(this.engine, tx, now);
        return remindReviewers(this.engine, tx, now);
      });
    }
    if (result.timed_out + result.rate_limited + result.warned + result.escalated + result.sent + result.placed > 0) {
      this.engine.log.info({ ...result }, 'scheduler tick');
    }
    return result;
  }

  /**
   * Handles due rows in keyset order, `batchSize` per transaction, until none are due or `budget` is
   * spent. Keyset paging (never "the first N again") means a row that fails is not retried in a loop.
   * Counts and released experts are taken only from committed batches.
   */
  private async drain<T, R>(d: Drain<T, R>): Promise<number> {
    let handled = 0;
    let after: DueCursor | null = null;
    if ((await d.due(this.engine.store, null, 1)).length === 0) return 0;
    while (handled < d.budget) {
      const limit = Math.min(this.batchSize, d.budget - handled);
      const cursor = after;
      const batch = await this.runBatch(d, (tx) => d.due(tx, cursor, limit));
      for (const r of batch.results) d.done(r);
      for (const id of batch.freed) d.freed.add(id);
      handled += batch.rows.length;
      if (batch.rows.length < limit) break;
      after = d.cursorOf(batch.rows[batch.rows.length - 1]!);
    }
    return handled;
  }

  /**
   * One batch in one transaction, without a savepoint per row: savepoints cost about a fifth of the
   * work. If any row throws, the whole batch is rolled back and redone row by row, each in its own
   * savepoint (`guarded`), so only the broken row fails, with reason `error`.
   */
  private async runBatch<T, R>(d: Drain<T, R>, load: (tx: Tx) => Promise<T[]>): Promise<{ rows: T[]; results: R[]; freed: Set<string> }> {
    const store = this.engine.store;
    try {
      return await store.transaction(async (tx) => {
        const rows = await load(tx);
        const freed = new Set<string>();
        const results: R[] = [];
        for (const row of rows) results.push(await d.work(tx, row, freed));
        return { rows, results, freed };
      });
    } catch (error) {
      // The storage failed, not a row: no row is to blame (or to be failed for it). The tick fails and
      // the same work is due again on the next one.
      if (error instanceof StorageUnavailable) throw error;
      this.engine.log.warn({ err: error }, 'a batch of due work failed; redoing it one request at a time');
      return store.transaction(async (tx) => {
        const rows = await load(tx);
        const freed = new Set<string>();
        const results: R[] = [];
        for (const row of rows) {
          const rowFreed = new Set<string>();
          let value: R | undefined;
          const ok = await guarded(this.engine, tx, d.requestOf(row), d.now, async (inner) => {
            value = await d.work(inner, row, rowFreed);
          }, freed);
          if (ok) {
            results.push(value as R);
            for (const id of rowFreed) freed.add(id);
          }
        }
        return { rows, results, freed };
      });
    }
  }

  /**
   * Which experts to re-check for waiting work: those released in this tick, or all of them when a
   * local day began (daily caps reset at local midnight), after a start, or when the registry changed.
   * Replies and cancels place waiting work themselves, in their own transactions.
   */
  private wakeScope(now: number, freed: ReadonlySet<string>): WakeScope {
    let all = false;
    if (now >= this.nextDayStart) {
      // Daily caps count in each expert's own zone: a day may begin for some of them at another hour.
      this.nextDayStart = nextDayStartOfAny(this.engine, now);
      all = true;
    }
    if (this.registry !== this.engine.experts) {
      this.registry = this.engine.experts;
      this.nextDayStart = nextDayStartOfAny(this.engine, now);
      all = true;
    }
    return all ? 'all' : freed;
  }
}
