import { chooseExperts, isCapped, type Candidate, type ExpertFacts, type ExpertLoad, type RouteDecision, type RouteLimits } from './route-request.js';

/** What routing needs of an away spell in force: who stands in. */
export interface AwayStandIn {
  delegate_to: string | null;
}

/**
 * Routing while some candidates are away. The request is first routed as if nobody were away, so one
 * that would have gone to an away expert goes to their delegate instead, when the delegate can take it
 * (known, not muted, not away, not at a cap). When a chosen away expert has no such delegate, away
 * experts are passed over as muted ones are, and the request is routed among the others.
 * `loads` must hold the delegates' loads as well as the candidates'.
 */
export function chooseAroundAway(
  candidates: readonly Candidate[],
  loads: ReadonlyMap<string, ExpertLoad>,
  limits: RouteLimits,
  registryOrder: (id: string) => number,
  expertOf: (id: string) => ExpertFacts | undefined,
  away: ReadonlyMap<string, AwayStandIn>,
): RouteDecision {
  const route = (l: ReadonlyMap<string, ExpertLoad>) => chooseExperts(candidates, l, limits, registryOrder, expertOf);
  if (!candidates.some((c) => away.has(c.expertId))) return route(loads);
  const loadOf = (id: string): ExpertLoad => loads.get(id) ?? { muted: false, openAsks: 0, queuedAsks: 0, asksToday: 0 };
  const canStandIn = (id: string) => expertOf(id) !== undefined && !away.has(id) && !loadOf(id).muted && !isCapped(loadOf(id), limits, expertOf(id));

  const asIfHere = route(loads);
  if (asIfHere.outcome === 'ask') {
    const ask: string[] = [];
    for (const id of asIfHere.ask) {
      const delegate = away.has(id) ? away.get(id)!.delegate_to : id;
      if (delegate === null || (delegate !== id && !canStandIn(delegate))) return passOver();
      if (!ask.includes(delegate)) ask.push(delegate);
    }
    return { ...asIfHere, ask, waitFor: asIfHere.waitFor.filter((id) => !away.has(id) && !ask.includes(id)) };
  }
  return passOver();

  function passOver(): RouteDecision {
    const passed = new Map(loads);
    for (const c of candidates) if (away.has(c.expertId)) passed.set(c.expertId, { ...loadOf(c.expertId), muted: true });
    return route(passed);
  }
}
