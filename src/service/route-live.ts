import { chooseAroundAway } from '../core/route-around-away.js';
import type { Candidate, RouteDecision } from '../core/route-request.js';
import type { Policy } from '../config/config-schema.js';
import type { ExpertLiveState } from '../domain/records.js';
import type { Tx } from '../store/store.js';
import { awaysAt } from './away-state.js';
import { liveStates, type Engine } from './engine.js';
import { routingFacts } from './expert-availability.js';

/**
 * Routes among `candidates` on their live state at `now`: their load, mute and caps, when each can be
 * asked, and who is away (their delegate stands in). Returns the decision and the states it read.
 */
export async function routeLive(
  engine: Engine,
  tx: Tx,
  candidates: readonly Candidate[],
  policy: Policy,
  now: number,
): Promise<{ decision: RouteDecision; states: Map<string, ExpertLiveState> }> {
  const ids = candidates.map((c) => c.expertId);
  const away = await awaysAt(tx, ids, now);
  const delegates = [...away.values()].map((a) => a.delegate_to).filter((id): id is string => id !== null && !ids.includes(id));
  const states = await liveStates(engine, tx, [...ids, ...new Set(delegates)], now);
  const order = (id: string) => engine.experts.get(id)?.order ?? 0;
  const decision = chooseAroundAway(candidates, states, policy, order, routingFacts(engine, policy.quiet_hours, now), away);
  return { decision, states };
}
