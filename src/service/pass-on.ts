import type { AskRecord, RequestRecord } from '../domain/records.js';
import { OPEN_STATUSES } from '../domain/records.js';
import { closeAsk, expertName } from './close-ask.js';
import type { Reads, Tx } from '../store/store.js';
import { audit, type Engine } from './engine.js';
import { planAsk } from './place-asks.js';
import { failRequest } from './submit-request.js';

/**
 * `skip` (and `mute` on a live ask, and an ask the transport could not deliver): the ask is passed to
 * the expert's escalation chain, passing over muted experts and experts already asked on this request.
 * With nobody left and nothing else outstanding, the request fails with `expert_declined`. Returns the
 * expert it was passed to, or null.
 */
export async function passOn(
  engine: Engine,
  tx: Tx,
  request: RequestRecord,
  ask: AskRecord,
  why: 'skip' | 'mute' | 'undeliverable',
  now: number,
): Promise<string | null> {
  const target = await nextInChain(engine, tx, request, ask.expert_id);
  const closure = why === 'mute' ? { why: 'muted' as const } : { why: 'skipped' as const, passedTo: target && expertName(engine, target) };
  await closeAsk(engine, tx, ask, 'skipped', closure, now);
  if (why !== 'undeliverable') {
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
 * Walks `escalation_to` from an expert: the first expert not muted and not already asked on this
 * request. A capped target is still returned: its ask waits until the expert frees up.
 */
export async function nextInChain(engine: Engine, reads: Reads, request: RequestRecord, fromExpertId: string): Promise<string | null> {
  const asked = new Set((await reads.asks.listFor(request.id)).map((a) => a.expert_id));
  const seen = new Set<string>([fromExpertId]);
  let current = engine.experts.get(fromExpertId)?.escalation_to ?? null;
  while (current !== null && !seen.has(current)) {
    seen.add(current);
    const expert = engine.experts.get(current);
    if (!expert) return null;
    if (!asked.has(current) && !(await reads.asks.isMuted(current))) return current;
    current = expert.escalation_to;
  }
  return null;
}
