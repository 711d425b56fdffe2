import type { ExpertRegistry, RegisteredExpert } from './expert-registry.js';
import { jaccard, topicTokens } from './normalize-topic.js';

/** Fuzzy matches are accepted at this Jaccard token overlap or higher. */
export const FUZZY_THRESHOLD = 0.5;

export type RouteStep = 'target' | 'exact' | 'fuzzy' | 'fallback';

export interface Candidate {
  expertId: string;
  step: RouteStep;
  /** Fuzzy score; 1 for exact, target and fallback. */
  score: number;
}

/** Live state of an expert as routing needs it. */
export interface ExpertLoad {
  muted: boolean;
  /** Asks sent and not yet answered, released, escalated or skipped. */
  openAsks: number;
  /** Asks planned but not sent yet (quiet hours, waiting for a capped target). */
  queuedAsks: number;
  asksToday: number;
}

export interface RouteLimits {
  max_open_asks_per_expert: number;
  max_asks_per_expert_per_day: number;
}

/** An expert's own caps from the registry; null: the policy's cap applies. */
export interface ExpertCaps {
  max_open_asks: number | null;
  max_asks_per_day: number | null;
}

/** What routing knows of one expert besides its load. */
export interface ExpertFacts extends ExpertCaps {
  /**
   * The first instant the expert may be asked (working hours, quiet hours…), at or before `now` when
   * available now; null when no such instant is known. Unset: any time.
   */
  availableFrom?: number | null;
}

export type RouteDecision =
  /** Ask `ask` now; `waitFor` are capped targets to ask once they free up. */
  | { outcome: 'ask'; step: RouteStep; ask: string[]; waitFor: string[] }
  /** Candidates exist but all are capped: hold the request until one frees up. */
  | { outcome: 'held'; step: RouteStep; waitFor: string[] }
  | { outcome: 'failed'; code: 'no_expert_found' };

/**
 * The first steps alone: listed targets, or exact topic matches. Routing tries these before scoring
 * fuzzy matches, which only matter when none of them can take the request.
 */
export function firstCandidates(topic: string, targetExperts: readonly string[] | null, registry: ExpertRegistry): Candidate[] {
  if (targetExperts && targetExperts.length > 0) {
    // A listed expert no running channel reaches is left out, as one not in the registry would be.
    return [...new Set(targetExperts)].filter((id) => !registry.has(id) || registry.reachable(id)).map((expertId) => ({ expertId, step: 'target' as const, score: 1 }));
  }
  return registry.withTopic(topic).map((expert) => ({ expertId: expert.id, step: 'exact' as const, score: 1 }));
}

/**
 * Candidates for a request in routing order, before live state is known: listed targets (step 1),
 * then exact topic matches (step 2), fuzzy matches at ≥ 0.5 best-topic Jaccard, highest first (step 3),
 * then the topic's fallback (step 4). Experts appear once, at their earliest step.
 */
export function findCandidates(
  topic: string,
  targetExperts: readonly string[] | null,
  registry: ExpertRegistry,
  fallbacks: Readonly<Record<string, { fallback: string | null }>>,
): Candidate[] {
  const candidates = firstCandidates(topic, targetExperts, registry);
  if (targetExperts && targetExperts.length > 0) return candidates;
  const seen = new Set(candidates.map((c) => c.expertId));
  const tokens = topicTokens(topic);
  const fuzzy: Candidate[] = [];
  for (const expert of registry.sharingTokens(tokens)) {
    if (seen.has(expert.id)) continue;
    const score = bestScore(tokens, expert);
    if (score >= FUZZY_THRESHOLD) fuzzy.push({ expertId: expert.id, step: 'fuzzy', score });
  }
  fuzzy.sort((a, b) => b.score - a.score);
  for (const c of fuzzy) {
    seen.add(c.expertId);
    candidates.push(c);
  }
  const fallback = fallbacks[topic]?.fallback;
  if (fallback && !seen.has(fallback) && registry.reachable(fallback)) {
    candidates.push({ expertId: fallback, step: 'fallback', score: 1 });
  }
  return candidates;
}

function bestScore(tokens: ReadonlySet<string>, expert: RegisteredExpert): number {
  let best = 0;
  for (const t of expert.topicTokens) best = Math.max(best, jaccard(tokens, t));
  return best;
}

/** The caps in force for one expert: their own where set, else the policy's. */
export function limitsFor(limits: RouteLimits, caps?: ExpertCaps | null): RouteLimits {
  return {
    max_open_asks_per_expert: caps?.max_open_asks ?? limits.max_open_asks_per_expert,
    max_asks_per_expert_per_day: caps?.max_asks_per_day ?? limits.max_asks_per_expert_per_day,
  };
}

/** Whether an expert is at a cap: their own caps (`caps`) where set, else the policy's. */
export function isCapped(load: ExpertLoad, limits: RouteLimits, caps?: ExpertCaps | null): boolean {
  const own = limitsFor(limits, caps);
  return load.openAsks >= own.max_open_asks_per_expert || load.asksToday >= own.max_asks_per_expert_per_day;
}

/**
 * Picks who to ask from ranked candidates and their live state. Muted and capped candidates are
 * skipped in favour of the next one. Those who can be asked now come first, then those free soonest
 * (`availableFrom`; unknown last); then by step and score; ties go to the fewest open (and planned)
 * asks, then the fewest asks today, then registry order. With targets, every available one is asked.
 */
export function chooseExperts(
  candidates: readonly Candidate[],
  loads: ReadonlyMap<string, ExpertLoad>,
  limits: RouteLimits,
  registryOrder: (id: string) => number,
  expertOf: (id: string) => ExpertFacts | undefined = () => undefined,
): RouteDecision {
  const loadOf = (id: string): ExpertLoad => loads.get(id) ?? { muted: false, openAsks: 0, queuedAsks: 0, asksToday: 0 };
  const capped = (id: string) => isCapped(loadOf(id), limits, expertOf(id));
  const unmuted = candidates.filter((c) => !loadOf(c.expertId).muted);
  if (unmuted.length === 0) return { outcome: 'failed', code: 'no_expert_found' };

  if (unmuted[0]!.step === 'target') {
    const ask = unmuted.filter((c) => !capped(c.expertId)).map((c) => c.expertId);
    const waitFor = unmuted.filter((c) => capped(c.expertId)).map((c) => c.expertId);
    return ask.length > 0 ? { outcome: 'ask', step: 'target', ask, waitFor } : { outcome: 'held', step: 'target', waitFor };
  }

  const stepRank: Record<RouteStep, number> = { target: 0, exact: 1, fuzzy: 2, fallback: 3 };
  const from = (id: string): number => {
    const at = expertOf(id)?.availableFrom;
    return at === undefined ? Number.NEGATIVE_INFINITY : at === null ? Number.POSITIVE_INFINITY : at;
  };
  const ranked = [...unmuted].sort((a, b) => {
    const la = loadOf(a.expertId);
    const lb = loadOf(b.expertId);
    const fa = from(a.expertId);
    const fb = from(b.expertId);
    return (
      (fa === fb ? 0 : fa < fb ? -1 : 1) ||
      stepRank[a.step] - stepRank[b.step] ||
      b.score - a.score ||
      la.openAsks + la.queuedAsks - (lb.openAsks + lb.queuedAsks) ||
      la.asksToday - lb.asksToday ||
      registryOrder(a.expertId) - registryOrder(b.expertId)
    );
  });
  const chosen = ranked.find((c) => !capped(c.expertId));
  if (chosen) return { outcome: 'ask', step: chosen.step, ask: [chosen.expertId], waitFor: [] };
  return { outcome: 'held', step: ranked[0]!.step, waitFor: [] };
}
