import { chooseAroundAway, type AwayStandIn } from '../core/route-around-away.js';
import type { Candidate, RouteDecision } from '../core/route-request.js';
import type { Policy } from '../config/config-schema.js';
import type { ExpertLiveState } from '../domain/records.js';
import type { Tx } from '../store/store.js';
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
  const states = await liveStates(engine, tx, ids, now);
  // Spells past their end no longer count, whether or not the scheduler has cleared them yet.
  const away = new Map<string, AwayStandIn>();
  for (const [id, s] of states) if (s.away && s.away.until > now) away.set(id, s.away);
  const delegates = [...away.values()].map((a) => a.delegate_to).filter((id): id is string => id !== null && !states.has(id));
  if (delegates.length > 0) for (const [id, s] of await liveStates(engine, tx, [...new Set(delegates)], now)) states.set(id, s);
  const order = (id: string) => engine.experts.get(id)?.order ?? 0;
  const decision = chooseAroundAway(candidates, states, policy, order, routingFacts(engine, policy.quiet_hours, now), away);
  return { decision, states };
}
