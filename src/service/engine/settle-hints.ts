import { limitsFor, type ExpertCaps, type RouteLimits } from '../../core/route-request.js';
import type { HintCheck, Tx } from '../../store/store.js';
import { dayStart, ownDayStarts, type Engine } from './engine.js';

/** Per transaction: the experts it sent asks on a hint, with the tightest caps they were sent under. */
const sentOnHints = new WeakMap<Tx, Map<string, RouteLimits>>();

/** Notes an ask sent while the transaction's view of its expert was a hint, for `settleHints` to check. */
export function noteSentOnHint(tx: Tx, expertId: string, policy: RouteLimits, caps: ExpertCaps): void {
  let sent = sentOnHints.get(tx);
  if (!sent) sentOnHints.set(tx, (sent = new Map()));
  const limits = limitsFor(policy, caps);
  const kept = sent.get(expertId);
  sent.set(expertId, {
    max_open_asks_per_expert: Math.min(limits.max_open_asks_per_expert, kept?.max_open_asks_per_expert ?? Infinity),
    max_asks_per_expert_per_day: Math.min(limits.max_asks_per_expert_per_day, kept?.max_asks_per_expert_per_day ?? Infinity),
  });
}

/**
 * Before a transaction that routed on hints commits: has the commit check the experts it gave asks,
 * under their locks (from then until commit no other instance adds to their load), against each
 * decision: the expert is neither muted nor away, and within the caps each ask was sent under, this
 * transaction's own asks counted (`AskRepository.checkAtCommit`). When one does not hold, the
 * transaction fails with `StaleHints`: the engine runs it again, and its routing weighs those experts
 * as they are now. The check costs no wait of its own: it goes out with the commit.
 */
export function settleHints(engine: Engine, tx: Tx, now: number): void {
  const placed = tx.asks.placedOnHints();
  if (placed.length === 0) return;
  const sent = sentOnHints.get(tx);
  const own = ownDayStarts(engine, placed, now);
  const orgDay = dayStart(engine, now);
  const checks: HintCheck[] = placed.map((id) => {
    const limits = sent?.get(id);
    return {
      expertId: id,
      dayStart: own.get(id) ?? orgDay,
      maxOpenAsks: limits?.max_open_asks_per_expert ?? null,
      maxAsksToday: limits?.max_asks_per_expert_per_day ?? null,
    };
  });
  tx.asks.checkAtCommit(checks, now);
}
