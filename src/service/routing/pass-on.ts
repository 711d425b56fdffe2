import type { AskRecord, RequestRecord } from '../../domain/records.js';
import { OPEN_STATUSES } from '../../domain/records.js';
import { closeAsk, expertName, audit, countEscalation, countPass, liveStates, type Engine, type Attendance, failRequest } from '../engine/index.js';
import type { Reads, Tx } from '../../store/store.js';
import { findCandidates, isCapped } from '../../core/route-request.js';
import { iso } from '../../clock.js';
import { awaysAt, awayByStatus, expertAvailability, isAwayNow } from '../availability/index.js';
import { planAsk } from './place-asks.js';
import { routeLive } from './route-live.js';

/**
 * `skip` (and `mute` on a live ask, an expert going away, and an ask the transport could not deliver):
 * the ask is passed to `target` when the caller found one (an away expert's delegate), else to the
 * expert's escalation chain, passing over muted and away experts and experts already asked on this
 * request. With nobody left and nothing else outstanding, the request fails with `expert_declined`.
 * `detail` is added to the `passed_on` audit row of an ask passed on for `away`.
 * Returns the expert it was passed to, or null.
 */
export async function passOn(
  engine: Attendance & Pick<Engine, 'clock' | 'threadedTransport'>,
  tx: Tx,
  request: RequestRecord,
  ask: AskRecord,
  why: 'skip' | 'mute' | 'undeliverable' | 'away',
  now: number,
  chosen: string | null = null,
  detail: Record<string, unknown> = {},
): Promise<string | null> {
  const target = chosen ?? (await nextInChain(engine, tx, request, ask.expert_id, now));
  const passedTo = target && expertName(engine.experts, target);
  const closure = why === 'mute' ? { why: 'muted' as const } : why === 'away' ? { why: 'away' as const, passedTo } : { why: 'skipped' as const, passedTo };
  await closeAsk(engine, tx, ask, 'skipped', closure, now);
  if (why === 'away') {
    await audit(engine, tx, { request_id: request.id, at: now, type: 'passed_on', actor: `expert:${ask.expert_id}`, data: { ask_id: ask.id, why, to: target, ...detail } });
  } else if (why !== 'undeliverable') {
    await audit(engine, tx, { request_id: request.id, at: now, type: 'skipped', actor: `expert:${ask.expert_id}`, data: { ask_id: ask.id, why } });
    if (why === 'skip') await countPass(tx, request, ask.expert_id, 'skips', now);
  }

  if (target) {
    await tx.requests.update(request.id, { status: 'escalated', updated_at: now });
    request.status = 'escalated';
    await countEscalation(tx, request);
    await audit(engine, tx, {
      request_id: request.id,
      at: now,
      type: 'escalated',
      actor: 'system',
      data: { from: ask.expert_id, to: target, because: why },
    });
    await planAsk(engine, tx, request, target, 'escalation', now);
    return target;
  }
  const outstanding = (await tx.asks.listFor(request.id)).some((a) => a.state === 'open' || a.state === 'queued');
  if (!outstanding && OPEN_STATUSES.includes(request.status) && request.status !== 'proposed') {
    const message =
      why === 'undeliverable'
        ? 'The expert could not be reached and nobody else in the escalation chain could take the question.'
        : 'The expert passed on the question and nobody else in the escalation chain could take it.';
    await failRequest(engine, tx, request, 'expert_declined', message, now);
  }
  return null;
}

/**
 * Walks `escalation_to` from an expert: the first expert not muted, not away at `now` (on a spell or
 * by their chat status) and not already asked on this request. A capped target is still returned: its
 * ask waits until the expert frees up.
 */
export async function nextInChain(engine: Pick<Engine, 'clock' | 'experts' | 'presence'>, reads: Reads, request: RequestRecord, fromExpertId: string, now = engine.clock.now()): Promise<string | null> {
  const asked = new Set((await reads.asks.listFor(request.id)).map((a) => a.expert_id));
  const seen = new Set<string>([fromExpertId]);
  let current = engine.experts.get(fromExpertId)?.escalation_to ?? null;
  while (current !== null && !seen.has(current)) {
    seen.add(current);
    const expert = engine.experts.get(current);
    if (!expert) return null;
    if (!asked.has(current) && !(await reads.asks.isMuted(current)) && !(await isAwayNow(engine.presence, reads, current, now))) return current;
    current = expert.escalation_to;
  }
  return null;
}

/**
 * Passes on an ask of an away expert: to their delegate when the delegate can be asked now, else along
 * the escalation chain, else to the delegate all the same (the ask waits for them), else to the next
 * expert routing would choose for the request among those not asked on it yet, else as `skip` does.
 * The delegate is passed over when muted, away, unknown or already asked on this request.
 *
 * `status`: the expert is away by what a channel shows (a Slack status until a time, an out-of-office
 * mail), not on a spell of their own. The ask is passed on
 * the same way, but with nobody to take it, it is left as it is (it waits for them) and null returned.
 */
export async function passOnForAway(engine: Attendance & Pick<Engine, 'clock' | 'threadedTransport'>, tx: Tx, request: RequestRecord, ask: AskRecord, now: number, status: { source: string; until?: number } | null = null): Promise<string | null> {
  const delegate = (await awaysAt(tx, [ask.expert_id], now)).get(ask.expert_id)?.delegate_to ?? null;
  const expert = delegate === null ? undefined : engine.experts.get(delegate);
  const detail = status ? { source: status.source, ...(status.until !== undefined ? { until: iso(status.until) } : {}) } : {};
  let standIn: string | null = null;
  if (expert && !(await tx.asks.listFor(request.id)).some((a) => a.expert_id === expert.id)) {
    const free = !(await tx.asks.isMuted(expert.id)) && !(await isAwayNow(engine.presence, tx, expert.id, now));
    if (free) standIn = expert.id;
    const state = (await liveStates(engine, tx, [expert.id], now)).get(expert.id);
    const availableNow =
      free && !(state && isCapped(state, request.routing_policy, expert)) && expertAvailability(engine, expert, request.routing_policy.quiet_hours, now).available;
    if (availableNow) return passOn(engine, tx, request, ask, 'away', now, expert.id, detail);
  }
  const target = (await nextInChain(engine, tx, request, ask.expert_id, now)) ?? standIn ?? (await nextCandidate(engine, tx, request, now));
  if (target === null && status) return null;
  return passOn(engine, tx, request, ask, 'away', now, target, detail);
}

/**
 * Who routing would ask on the request now among its candidates not asked on it yet, passing over
 * anyone away; null when nobody is left or everyone left is at a cap.
 */
async function nextCandidate(engine: Attendance, tx: Tx, request: RequestRecord, now: number): Promise<string | null> {
  const asked = new Set((await tx.asks.listFor(request.id)).map((a) => a.expert_id));
  const candidates = findCandidates(request.topic, request.target_experts, engine.experts, engine.config.topics).filter((c) => !asked.has(c.expertId));
  if (candidates.length === 0) return null;
  const { decision } = await routeLive(engine, tx, candidates, request.routing_policy, now);
  if (decision.outcome !== 'ask') return null;
  return decision.ask.find((id) => !asked.has(id) && awayByStatus(engine.presence, id, now) === null) ?? null;
}
