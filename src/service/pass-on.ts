import type { AskRecord, RequestRecord } from '../domain/records.js';
import { OPEN_STATUSES } from '../domain/records.js';
import { closeAsk, expertName } from './close-ask.js';
import type { Reads, Tx } from '../store/store.js';
import { audit, liveStates, type Engine } from './engine.js';
import { isCapped } from '../core/route-request.js';
import { awaysAt, isAway } from './away-state.js';
import { expertAvailability } from './expert-availability.js';
import { planAsk } from './place-asks.js';
import { failRequest } from './submit-request.js';

/**
 * `skip` (and `mute` on a live ask, an expert going away, and an ask the transport could not deliver):
 * the ask is passed to `target` when the caller found one (an away expert's delegate), else to the
 * expert's escalation chain, passing over muted and away experts and experts already asked on this
 * request. With nobody left and nothing else outstanding, the request fails with `expert_declined`.
 * Returns the expert it was passed to, or null.
 */
export async function passOn(
  engine: Engine,
  tx: Tx,
  request: RequestRecord,
  ask: AskRecord,
  why: 'skip' | 'mute' | 'undeliverable' | 'away',
  now: number,
  chosen: string | null = null,
): Promise<string | null> {
  const target = chosen ?? (await nextInChain(engine, tx, request, ask.expert_id, now));
  const passedTo = target && expertName(engine, target);
  const closure = why === 'mute' ? { why: 'muted' as const } : why === 'away' ? { why: 'away' as const, passedTo } : { why: 'skipped' as const, passedTo };
  await closeAsk(engine, tx, ask, 'skipped', closure, now);
  if (why === 'away') {
    await audit(engine, tx, { request_id: request.id, at: now, type: 'passed_on', actor: `expert:${ask.expert_id}`, data: { ask_id: ask.id, why, to: target } });
  } else if (why !== 'undeliverable') {
    await audit(engine, tx, { request_id: request.id, at: now, type: 'skipped', actor: `expert:${ask.expert_id}`, data: { ask_id: ask.id, why } });
  }

  if (target) {
    await tx.requests.update(request.id, { status: 'escalated', updated_at: now });
    request.status = 'escalated';
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
 * Walks `escalation_to` from an expert: the first expert not muted, not away at `now` and not already
 * asked on this request. A capped target is still returned: its ask waits until the expert frees up.
 */
export async function nextInChain(engine: Engine, reads: Reads, request: RequestRecord, fromExpertId: string, now = engine.clock.now()): Promise<string | null> {
  const asked = new Set((await reads.asks.listFor(request.id)).map((a) => a.expert_id));
  const seen = new Set<string>([fromExpertId]);
  let current = engine.experts.get(fromExpertId)?.escalation_to ?? null;
  while (current !== null && !seen.has(current)) {
    seen.add(current);
    const expert = engine.experts.get(current);
    if (!expert) return null;
    if (!asked.has(current) && !(await reads.asks.isMuted(current)) && !(await isAway(reads, current, now))) return current;
    current = expert.escalation_to;
  }
  return null;
}

/**
 * Passes on an ask of an away expert: to their delegate when the delegate can be asked now, else along
 * the escalation chain, else to the delegate all the same (the ask waits for them), else as `skip` does.
 * The delegate is passed over when muted, away, unknown or already asked on this request.
 */
export async function passOnForAway(engine: Engine, tx: Tx, request: RequestRecord, ask: AskRecord, now: number): Promise<string | null> {
  const delegate = (await awaysAt(tx, [ask.expert_id], now)).get(ask.expert_id)?.delegate_to ?? null;
  const expert = delegate === null ? undefined : engine.experts.get(delegate);
  let standIn: string | null = null;
  if (expert && !(await tx.asks.listFor(request.id)).some((a) => a.expert_id === expert.id)) {
    const free = !(await tx.asks.isMuted(expert.id)) && !(await isAway(tx, expert.id, now));
    if (free) standIn = expert.id;
    const state = (await liveStates(engine, tx, [expert.id], now)).get(expert.id);
    const availableNow =
      free && !(state && isCapped(state, request.routing_policy, expert)) && expertAvailability(engine, expert, request.routing_policy.quiet_hours, now).available;
    if (availableNow) return passOn(engine, tx, request, ask, 'away', now, expert.id);
  }
  const chained = await nextInChain(engine, tx, request, ask.expert_id, now);
  return passOn(engine, tx, request, ask, 'away', now, chained ?? standIn);
}
