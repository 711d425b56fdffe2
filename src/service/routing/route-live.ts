import { chooseAroundAway, type AwayStandIn } from '../../core/route-around-away.js';
import type { Candidate, RouteDecision } from '../../core/route-request.js';
import type { Policy } from '../../config/config-schema.js';
import type { ExpertLiveState } from '../../domain/records.js';
import type { Tx } from '../../store/store.js';
import { liveStates, type Attendance } from '../engine/index.js';
import { awayByStatus, routingFacts, inForce } from '../availability/index.js';

/**
 * Routes among `candidates` on their live state at `now`: their load, mute and caps, when each can be
 * asked, and who is away (their delegate stands in). An expert whose chat status says they are away is
 * passed over like one on an away spell without a delegate, unless nobody else can take the request:
 * then the request goes to whoever is back soonest and waits for them. Returns the decision and the
 * states it read.
 *
 * In a transaction that routes optimistically, the candidates are weighed on states that may be a
 * moment old; the store checks the experts an ask goes to at commit. A decision that holds a request back or
 * fails it, or one among listed targets (each of whom matters), is made on settled states only.
 */
export async function routeLive(
  engine: Attendance,
  tx: Tx,
  candidates: readonly Candidate[],
  policy: Policy,
  now: number,
): Promise<{ decision: RouteDecision; states: Map<string, ExpertLiveState> }> {
  const first = await decideOn(engine, tx, candidates, policy, now, false);
  const mustSettle = first.decision.outcome !== 'ask' || first.decision.step === 'target';
  if (!mustSettle) return first;
  // Weighed again on exact states: the transaction kept those it read exact, so only hints are read again.
  return decideOn(engine, tx, candidates, policy, now, true);
}

async function decideOn(
  engine: Attendance,
  tx: Tx,
  candidates: readonly Candidate[],
  policy: Policy,
  now: number,
  settled: boolean,
): Promise<{ decision: RouteDecision; states: Map<string, ExpertLiveState> }> {
  const ids = candidates.map((c) => c.expertId);
  const states = await liveStates(engine, tx, ids, now, settled);
  const away = new Map<string, AwayStandIn>();
  for (const [id, s] of states) {
    const spell = inForce(s.away, now);
    if (spell) away.set(id, spell);
  }
  const delegates = [...away.values()].map((a) => a.delegate_to).filter((id): id is string => id !== null && !states.has(id));
  if (delegates.length > 0) for (const [id, s] of await liveStates(engine, tx, [...new Set(delegates)], now, settled)) states.set(id, s);
  const order = (id: string) => engine.experts.get(id)?.order ?? 0;
  const facts = routingFacts(engine, policy.quiet_hours, now);
  const byStatus = new Map(away);
  for (const id of ids) if (!away.has(id) && awayByStatus(engine.presence, id, now) !== null) byStatus.set(id, { delegate_to: null });
  const decision = chooseAroundAway(candidates, states, policy, order, facts, byStatus);
  if (decision.outcome === 'ask' || byStatus.size === away.size) return { decision, states };
  return { decision: chooseAroundAway(candidates, states, policy, order, facts, away), states };
}
