import { findCandidates, firstCandidates, type RouteDecision } from '../../core/route-request.js';
import type { RequestRecord } from '../../domain/records.js';
import type { Tx } from '../../store/store.js';
import { audit, type Engine, type Routing, type Attendance, type Roster, failRequest, updateRequest, writeNewRequest, countHold } from '../engine/index.js';
import { routingFacts, suggestTopics } from '../availability/index.js';
import { planAsk } from './place-asks.js';
import { routeLive } from './route-live.js';

/** Routes a new request (or one whose reused answer was sent back) and plans its asks. Returns what happened to the request. */
export async function routeAndAsk(engine: Routing, tx: Tx, request: RequestRecord, now: number): Promise<'asked' | 'held' | 'failed'> {
  const decision = await decideRoute(engine, tx, request, now);

  if (decision.outcome === 'failed') {
    // Failing tells the request's subscribers (the submitter among them): it must be stored first.
    await writeNewRequest(tx, request);
    await failRequest(engine, tx, request, 'no_expert_found', noExpertMessage(engine, request), now);
    return 'failed';
  }
  if (decision.outcome === 'held') {
    await updateRequest(tx, request, { held: true, updated_at: now });
    await countHold(tx, request, now);
    await audit(engine, tx, {
      request_id: request.id,
      at: now,
      type: 'held',
      actor: 'system',
      data: { step: decision.step, reason: 'every candidate is at a rate-limit cap', waiting_for: decision.waitFor },
    });
    for (const id of decision.waitFor) await planAsk(engine, tx, request, id, 'target', now);
    engine.log.info(
      { request_id: request.id, topic: request.topic, waiting_for: decision.waitFor },
      'request held: every expert who could take it is at a limit; it is sent when one has room',
    );
    return 'held';
  }
  await askAsRouted(engine, tx, request, decision, now);
  return 'asked';
}

/**
 * Records a routing decision and plans its asks: the chosen experts now, capped targets once they
 * free up. Used for new requests and for held ones placed later (`extra` says which).
 */
export async function askAsRouted(
  engine: Attendance & Pick<Engine, 'clock'>,
  tx: Tx,
  request: RequestRecord,
  decision: Extract<RouteDecision, { outcome: 'ask' }>,
  now: number,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await audit(engine, tx, {
    request_id: request.id,
    at: now,
    type: 'routed',
    actor: 'system',
    data: { step: decision.step, experts: decision.ask, waiting_for: decision.waitFor, ...extra },
  });
  for (const id of [...decision.ask, ...decision.waitFor]) await planAsk(engine, tx, request, id, decision.step, now);
}

/** Why nobody can be asked: nobody takes the topic (and which topics are close), or everyone who does muted. */
function noExpertMessage(engine: Roster, request: RequestRecord): string {
  if (request.target_experts) return 'Every expert listed in target_experts has muted questions or is away.';
  const candidates = findCandidates(request.topic, null, engine.experts, engine.config.topics);
  if (candidates.length > 0) return `Every expert who takes the topic "${request.topic}" has muted questions or is away, and it has no other fallback.`;
  return `No expert takes the topic "${request.topic}" (exactly or by a similar topic), and it has no fallback expert.${suggestTopics(engine, request.topic)}`;
}

/** Routing decision for a request: targets or exact matches first, the whole cascade only if needed. */
async function decideRoute(engine: Attendance, tx: Tx, request: RequestRecord, now: number): Promise<RouteDecision> {
  const policy = request.routing_policy;
  const facts = routingFacts(engine, policy.quiet_hours, now);
  const first = firstCandidates(request.topic, request.target_experts, engine.experts);
  if (first.length > 0) {
    const { decision } = await routeLive(engine, tx, first, policy, now);
    // Someone further down the cascade may be free now while the exact matches are not.
    const askedNow = decision.outcome === 'ask' && decision.ask.every((id) => (facts(id)?.availableFrom ?? now) <= now);
    if (askedNow || first[0]!.step === 'target') return decision;
  }
  const candidates = findCandidates(request.topic, request.target_experts, engine.experts, engine.config.topics);
  return (await routeLive(engine, tx, candidates, policy, now)).decision;
}
