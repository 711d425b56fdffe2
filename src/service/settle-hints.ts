import { limitsFor, type ExpertCaps, type RouteLimits } from '../core/route-request.js';
import { StaleHints } from '../store/errors.js';
import type { Tx } from '../store/store.js';
import { liveStates, type Engine } from './engine.js';
import { inForce } from './away-state.js';

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
 * Before a transaction that routed on hints commits: reads the experts it gave asks again, under
 * their locks (from then until commit no other instance adds to their load), and checks that each
 * decision still holds: the expert is neither muted nor away, and within the caps each ask was sent
 * under, this transaction's own asks counted. Throws `StaleHints` when one does not: the engine runs
 * the transaction again, and its routing weighs those experts as they are now.
 */
export async function settleHints(engine: Engine, tx: Tx, now: number): Promise<void> {
  const placed = tx.asks.placedOnHints();
  if (placed.length === 0) return;
  const states = await liveStates(engine, tx, placed, now, true);
  const sent = sentOnHints.get(tx);
  const stale = placed.filter((id) => {
    const state = states.get(id)!;
    if (state.muted || inForce(state.away, now)) return true;
    const limits = sent?.get(id);
    return limits !== undefined && (state.openAsks > limits.max_open_asks_per_expert || state.asksToday > limits.max_asks_per_expert_per_day);
  });
  if (stale.length > 0) throw new StaleHints(stale);
}
