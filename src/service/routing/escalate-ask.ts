import { iso } from '../../clock.js';
import { formatDuration, formatShortDuration } from '../../config/durations.js';
import type { AskRecord } from '../../domain/records.js';
import type { Tx } from '../../store/store.js';
import { audit, closeAsk, countEscalation, expertName, type Routing } from '../engine/index.js';
import { nextInChain } from './pass-on.js';
import { planAsk } from './place-asks.js';

/**
 * `escalation_after` has passed on an open ask. The expert's
 * `escalation_to` chain is walked past muted experts and experts already asked; the target is asked
 * (or, when capped or in quiet hours, its ask waits), the original ask becomes `escalated` and stops
 * counting against its expert, and the request becomes `escalated`. With nobody to escalate to the
 * ask keeps waiting for a reply and is not checked again. Returns whether it escalated.
 */
export async function escalateAsk(engine: Routing, tx: Tx, due: AskRecord, now: number, freed: Set<string>): Promise<boolean> {
  const request = await tx.requests.get(due.request_id);
  // The due-work read locks nothing: another instance may have escalated, answered or closed this ask
  // since. Read again now that the request is held, and act only if it is still due.
  const ask = await tx.asks.get(due.id);
  if (!ask || ask.state !== 'open' || ask.escalate_at === null || ask.escalate_at > now) return false;
  const escalatable = request !== undefined && (request.status === 'asked' || request.status === 'escalated');
  const target = escalatable ? await nextInChain(engine, tx, request, ask.expert_id, now) : null;
  if (!escalatable || target === null) {
    await tx.asks.update(ask.id, { escalate_at: null });
    engine.log.debug({ request_id: ask.request_id, ask_id: ask.id, expert_id: ask.expert_id }, 'escalation due, nobody to escalate to; the ask keeps waiting');
    return false;
  }
  const waitedFor = ask.sent_at;
  await closeAsk(engine, tx, ask, 'escalated', { why: 'escalated', to: expertName(engine.experts, target), after: formatShortDuration(request.routing_policy.escalation_after) }, now);
  freed.add(ask.expert_id);
  request.status = 'escalated';
  await tx.requests.update(request.id, { status: 'escalated', updated_at: now });
  await countEscalation(tx, request);
  await audit(engine, tx, {
    request_id: request.id,
    at: now,
    type: 'escalated',
    actor: 'system',
    data: {
      ask_id: ask.id,
      from: ask.expert_id,
      to: target,
      because: 'no_reply',
      due_at: iso(ask.escalate_at),
      waited: waitedFor === null ? null : formatDuration(Math.max(1, Math.round((now - waitedFor) / 1000)) * 1000),
    },
  });
  await planAsk(engine, tx, request, target, 'escalation', now);
  engine.log.info({ request_id: request.id, ask_id: ask.id, from: ask.expert_id, to: target }, 'ask escalated');
  return true;
}
