import type { ExpertRegistry } from '../../core/expert-registry.js';
import { isWaiting, type AskRecord, type FailureCode, type RequestRecord } from '../../domain/records.js';
import { nextDayStartOfAny, type Engine, type Routing } from '../engine/index.js';
import { endDueAways } from '../experts/index.js';
import { giveUp, warnExpiring } from '../requests/index.js';
import { mayRemind, noteOverdueCards, remindReviewers } from '../review/index.js';
import { escalateAsk, mayPlace, placeWaiting, type WakeScope } from '../routing/index.js';
import { drainDue } from './drain-due.js';

/** What one tick did, as `ExpertqService.tick()` reports it. */
export interface TickResult {
  timed_out: number;
  rate_limited: number;
  /** Open requests whose subscribers were told they give up soon (`request_expiring`). */
  warned: number;
  escalated: number;
  /** Queued asks sent (quiet hours over, or their expert freed up). */
  sent: number;
  /** Held requests placed with an expert. */
  placed: number;
  /** True when due work was left for the next tick (`maxPerTick` reached). */
  more: boolean;
  /** True when reviewers were reminded of the pending queue (`review.remind_after`). */
  reminded: boolean;
}

export interface DueWorkOptions {
  /** Due rows handled per transaction (one commit, one fsync, per batch). */
  batchSize?: number;
  /** Escalations plus give-ups per tick; the rest wait for the next tick, so one tick never blocks for long. */
  maxPerTick?: number;
}

/**
 * What `runDueWork` keeps between ticks: its batch sizes, and a hint about what could have changed
 * (the start of the next local day, when caps reset, and the registry last seen). Both start
 * "unknown", so the first tick after a start re-checks all waiting work. One per service.
 */
export class DueWorkState {
  readonly batchSize: number;
  readonly maxPerTick: number;
  nextDayStart = Number.NEGATIVE_INFINITY;
  registry: ExpertRegistry | null = null;

  constructor(options: DueWorkOptions = {}) {
    this.batchSize = options.batchSize ?? 1_000;
    this.maxPerTick = options.maxPerTick ?? 5_000;
  }
}

/**
 * Acts on everything that happens because time passed. Deadlines are absolute timestamps in the
 * database (`give_up_at`, `escalate_at`, `send_after`), and each run asks the indexes what is due at
 * `now`, so a late tick catches up and a restart loses nothing.
 *
 * Order: give-ups first (a request past `give_up_after` fails rather than escalates or warns), then
 * warnings of requests about to give up, then escalations, then waiting work, so capacity released by
 * the first two is used in the same tick.
 */
export async function runDueWork(engine: Routing & Pick<Engine, 'store' | 'review' | 'counters' | 'channels'>, state: DueWorkState, now: number): Promise<TickResult> {
  const result: TickResult = { timed_out: 0, rate_limited: 0, warned: 0, escalated: 0, sent: 0, placed: 0, more: false, reminded: false };
  const freed = new Set<string>();
  const store = engine.store;
  let budget = state.maxPerTick;

  budget -= await drainDue<Pick<RequestRecord, 'id' | 'give_up_at'>, FailureCode | null>(engine, state.batchSize, {
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
      return giveUp(engine, tx, request, now, batchFreed);
    },
    done: (code) => (code === 'rate_limited' ? result.rate_limited++ : code === 'timeout' ? result.timed_out++ : undefined),
  });
  budget -= await drainDue<{ id: string; warn_at: number }, boolean>(engine, state.batchSize, {
    budget,
    now,
    freed,
    due: (tx, after, limit) => tx.requests.dueWarnings(now, after, limit),
    cursorOf: (r) => ({ at: r.warn_at, id: r.id }),
    requestOf: (r) => r.id,
    work: (tx, r) => warnExpiring(engine, tx, r.id, now),
    done: (warned) => (warned ? result.warned++ : undefined),
  });
  budget -= await drainDue<AskRecord, boolean>(engine, state.batchSize, {
    budget,
    now,
    freed,
    due: (tx, after, limit) => tx.asks.dueEscalations(now, after, limit),
    cursorOf: (a) => ({ at: a.escalate_at!, id: a.id }),
    requestOf: (a) => a.request_id,
    work: (tx, a, batchFreed) => escalateAsk(engine, tx, a, now, batchFreed),
    done: (escalated) => (escalated ? result.escalated++ : undefined),
  });
  result.more = budget <= 0;

  // Away spells that have ended: those experts' waiting work gets its chance below.
  for (const id of await endDueAways(engine, now)) freed.add(id);
  // Each step looks first with a read and opens a transaction only when there is work: an idle tick writes nothing.
  const scope = wakeScope(engine, state, now, freed);
  if (await mayPlace(store, scope, now)) {
    const placed = await store.transaction((tx) => placeWaiting(engine, tx, scope, now));
    result.sent = placed.sent;
    result.placed = placed.placed;
  }
  // Reviewers: one reminder when the queue's oldest proposal waits too long; cards past give-up say so.
  if (engine.review.channel !== null || (await mayRemind(engine, now))) {
    result.reminded = await store.transaction(async (tx) => {
      await noteOverdueCards(engine, tx, now);
      return remindReviewers(engine, tx, now);
    });
  }
  if (result.timed_out + result.rate_limited + result.warned + result.escalated + result.sent + result.placed > 0) {
    engine.log.info({ ...result }, 'scheduler tick');
  }
  return result;
}

/**
 * Which experts to re-check for waiting work: those released in this tick, or all of them when a
 * local day began (daily caps reset at local midnight), after a start, or when the registry changed.
 * Replies and cancels place waiting work themselves, in their own transactions.
 */
function wakeScope(engine: Pick<Engine, 'experts' | 'config'>, state: DueWorkState, now: number, freed: ReadonlySet<string>): WakeScope {
  let all = false;
  if (now >= state.nextDayStart) {
    // Daily caps count in each expert's own zone: a day may begin for some of them at another hour.
    state.nextDayStart = nextDayStartOfAny(engine, now);
    all = true;
  }
  if (state.registry !== engine.experts) {
    state.registry = engine.experts;
    state.nextDayStart = nextDayStartOfAny(engine, now);
    all = true;
  }
  return all ? 'all' : freed;
}
