import { composeAsk } from '../core/compose-ask.js';
import { isQuietAt } from '../core/local-time.js';
import { isCapped } from '../core/route-request.js';
import { newId } from '../ids.js';
import type { AskRecord, AskVia, RequestRecord } from '../store/records.js';
import { audit, liveStates, type Engine } from './engine.js';

/**
 * Plans an ask of one expert on a request and sends it at once when the rules allow: not in quiet
 * hours, expert not muted and not at a cap. Otherwise the ask stays `queued` and is sent later.
 * Must run inside a transaction.
 */
export function planAsk(engine: Engine, request: RequestRecord, expertId: string, via: AskVia, now: number): AskRecord {
  const ask: AskRecord = {
    id: newId('ask'),
    request_id: request.id,
    expert_id: expertId,
    state: 'queued',
    via,
    created_at: now,
    sent_at: null,
    escalate_at: null,
    closed_at: null,
  };
  engine.store.insertAsk(ask);
  trySendAsk(engine, request, ask, now);
  return ask;
}

export type SendOutcome = 'sent' | 'quiet_hours' | 'capped' | 'muted' | 'unknown_expert';

/**
 * Sends a queued ask if the limits allow it now. "Sent" means the message is committed to the
 * transport outbox in this transaction: it goes out after commit and is retried until it does.
 * Limits are checked here, before every send, and are not advisory.
 */
export function trySendAsk(engine: Engine, request: RequestRecord, ask: AskRecord, now: number): SendOutcome {
  const expert = engine.experts.get(ask.expert_id);
  if (!expert) return 'unknown_expert';
  const policy = request.routing_policy;
  const state = liveStates(engine, [expert.id], now).get(expert.id);
  if (state?.muted) return 'muted';
  if (state && isCapped(state, policy)) return 'capped';
  if (isQuietAt(now, engine.config.org.timezone, policy.quiet_hours)) {
    audit(engine, {
      request_id: request.id,
      at: now,
      type: 'quiet_hours_wait',
      actor: 'system',
      data: { ask_id: ask.id, expert_id: expert.id, quiet_hours: policy.quiet_hours },
    });
    return 'quiet_hours';
  }

  const text = composeAsk({
    orgName: engine.config.org.name,
    expertName: expert.name,
    consumerId: request.consumer_id,
    askedBecause: String(request.context.asked_because ?? ''),
    question: request.question,
  });
  ask.state = 'open';
  ask.sent_at = now;
  ask.escalate_at = now + policy.escalation_after;
  engine.store.updateAsk(ask.id, { state: 'open', sent_at: now, escalate_at: ask.escalate_at });
  engine.store.enqueueMessage({
    id: newId('msg'),
    expert_id: expert.id,
    request_id: request.id,
    ask_id: ask.id,
    purpose: 'ask',
    text,
    state: 'pending',
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
    sent_at: null,
    last_error: null,
  });
  audit(engine, {
    request_id: request.id,
    at: now,
    type: 'asked',
    actor: 'system',
    data: { ask_id: ask.id, expert_id: expert.id, expert_name: expert.name, via: ask.via },
  });
  if (request.status === 'queued') {
    request.status = 'asked';
    request.held = false;
    engine.store.updateRequest(request.id, { status: 'asked', held: false, updated_at: now });
  }
  return 'sent';
}
