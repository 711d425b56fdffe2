import { askElements } from '../../core/compose-ask.js';
import type { PreviousAnswer } from '../../core/previous-answer.js';
import { iso } from '../../clock.js';
import { SEARCH_HORIZON_MS, type BlockReason } from '../../core/availability.js';
import { isCapped, limitsFor } from '../../core/route-request.js';
import { newId } from '../../ids.js';
import type { AskRecord, AskVia, AuditEntry, RequestRecord } from '../../domain/records.js';
import type { AskPatch, Tx } from '../../store/store.js';
import { audit, liveStates, queueMessage, type Engine, type Attendance, isNewRequest, updateRequest, noteFirstAsk, countAskSent } from '../engine/index.js';
import { expertAvailability, inForce } from '../availability/index.js';

/**
 * Plans an ask of one expert on a request and sends it at once when the rules allow: not in quiet
 * hours, expert not muted and not at a cap. Otherwise the ask stays `queued` and is sent later.
 * The ask is written once, in the state it ends up in. Must run inside a transaction.
 */
export async function planAsk(engine: Attendance & Pick<Engine, 'clock'>, tx: Tx, request: RequestRecord, expertId: string, via: AskVia, now: number, instructions: string | null = null): Promise<AskRecord> {
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
    send_after: null,
    instructions,
  };
  await trySendAsk(engine, tx, request, ask, now, true);
  return ask;
}

/** How long an ask waiting for its expert's chat status waits before it is tried again anyway. */
const STATUS_RETRY_MS = 30_000;

/**
 * `set_away`: the expert set an away spell; `status_away`: their chat status says they are away. The
 * caller passes the ask on for either (for `status_away` only when someone can take it; else it tries
 * again with `awayPassesOn` off and the ask waits, `away`). `dnd` and the other reasons of the
 * availability rules make it wait. `checking_status`: their chat status is being looked up.
 */
export type SendOutcome = 'sent' | BlockReason | 'capped' | 'muted' | 'set_away' | 'status_away' | 'unknown_expert' | 'drafting' | 'checking_status';

/**
 * Sends a queued ask if the limits allow it now. "Sent" means the message is committed to the
 * transport outbox in this transaction: it goes out after commit and is retried until it does.
 * Limits are checked here, before every send, and are not advisory.
 *
 * An ask held back by quiet hours or the expert's working hours records when the expert is next free
 * (`send_after`), which is when the scheduler tries it again; the wait is audited once (`quiet_hours_wait`
 * when only quiet hours hold it, else `waiting_for_expert`), not on every retry. An ask held back
 * by a cap waits for its expert to free up (the scheduler is told by whatever frees them).
 *
 * An existing ask whose expert's chat status says they are away is left untouched (`status_away`)
 * while `awayPassesOn`, for the caller to pass on; a new ask went to them because nobody else could
 * take the request, and waits.
 */
export async function trySendAsk(engine: Attendance & Pick<Engine, 'clock'>, tx: Tx, request: RequestRecord, ask: AskRecord, now: number, isNew = false, awayPassesOn = !isNew): Promise<SendOutcome> {
  // A new ask (from `planAsk`) is inserted once at the end, in its final state; an existing one is updated.
  const save = async (patch: AskPatch) => {
    Object.assign(ask, patch);
    if (!isNew) await tx.asks.update(ask.id, patch);
  };
  const outcome = await decideSend(engine, tx, request, ask, now, save, awayPassesOn);
  if (isNew) await tx.asks.insert(ask);
  return outcome;
}

async function decideSend(
  engine: Attendance & Pick<Engine, 'clock'>,
  tx: Tx,
  request: RequestRecord,
  ask: AskRecord,
  now: number,
  save: (patch: AskPatch) => Promise<void>,
  awayPassesOn: boolean,
): Promise<SendOutcome> {
  // Not sent for a reason other than quiet hours: no longer due at a time, so off the `send_after` index.
  const notNow = async (outcome: SendOutcome) => {
    if (ask.send_after !== null) await save({ send_after: null });
    return outcome;
  };
  // With an LLM, no ask goes out before its request's question is drafted (or the draft gave up).
  if (request.drafting) return await notNow('drafting');
  const expert = engine.experts.get(ask.expert_id);
  if (!expert) return await notNow('unknown_expert');
  const policy = request.routing_policy;
  const state = (await liveStates(engine, tx, [expert.id], now)).get(expert.id);
  if (state?.muted) return await notNow('muted');
  if (inForce(state?.away, now)) return await notNow('set_away');
  if (state && isCapped(state, policy, expert)) return await notNow('capped');
  const free = expertAvailability(engine, expert, policy.quiet_hours, now);
  // `away` here is the chat status (an away spell of their own was `set_away` above).
  if (!free.available && free.why === 'away' && awayPassesOn) return 'status_away';
  if (!free.available) {
    // No instant within the search horizon (working hours wholly inside quiet hours): look again then.
    const until = free.until ?? now + SEARCH_HORIZON_MS;
    if (ask.send_after !== until) {
      await save({ send_after: until });
      await audit(engine, tx, waitAudit(request.id, ask.id, expert.id, free.why, free.until, policy.quiet_hours, now));
    }
    if (request.held) {
      // The expert has room: the request is placed and waits only for the expert to be free.
      await updateRequest(tx, request, { held: false, updated_at: now });
    }
    return free.why;
  }
  if (engine.presence && !engine.presence.fresh(expert.id)) {
    // Free by every other rule: the chat status is looked up in the background, and once it is known
    // this expert's waiting work gets its chance again. Until then the ask waits, with a retry in case
    // that wake-up is lost (a restart).
    if (ask.send_after === null || ask.send_after <= now) await save({ send_after: now + STATUS_RETRY_MS });
    return 'checking_status';
  }

  const elements = askElements({
    orgName: engine.config.org.name,
    expertName: expert.name,
    consumerId: request.consumer_id,
    askedBecause: String(request.context.asked_because ?? ''),
    question: request.asked_question ?? request.question,
    sentBack: ask.instructions
      ? { instructions: ask.instructions, previousAnswer: (await tx.proposals.listFor(request.id)).at(-1)?.answer ?? null }
      : undefined,
    previous: ask.instructions ? undefined : await previousAnswer(engine.config, tx, request),
    guideUrl: engine.config.org.expert_guide_url,
  });
  const limits = limitsFor(policy, expert);
  tx.asks.placedUnder(expert.id, { maxOpenAsks: limits.max_open_asks_per_expert, maxAsksToday: limits.max_asks_per_expert_per_day }, now);
  const wasDeferred = ask.send_after !== null;
  // The expert's slot is taken now, after the wait (if any) for another instance routing to them:
  // the ask's history says when it really began to count against their limits.
  const sentAt = Math.max(now, engine.clock.now());
  // The expert's first channel this service runs; a permanent failure there moves the ask to the next.
  const channel = expert.reach[0] ?? null;
  const sent: AskPatch = { state: 'open', sent_at: sentAt, escalate_at: sentAt + policy.escalation_after, channel };
  if (wasDeferred) sent.send_after = null;
  await save(sent);
  await queueMessage(tx, { expert_id: expert.id, request_id: request.id, ask_id: ask.id, purpose: 'ask', channel, text: elements.join('\n'), elements }, now);
  // An ask of a request being submitted: its expert was never asked on it, and nothing in a submit
  // closes the ask again or rolls it back (a failed submit's transaction fails whole).
  if (isNewRequest(request)) noteFirstAsk(tx, ask.id);
  await countAskSent(tx, request, ask, sentAt);
  await audit(engine, tx, {
    request_id: request.id,
    at: sentAt,
    type: 'asked',
    actor: 'system',
    data: { ask_id: ask.id, expert_id: expert.id, expert_name: expert.name, via: ask.via, channel },
  });
  if (request.status === 'queued') {
    await updateRequest(tx, request, { status: 'asked', held: false, updated_at: now });
  }
  return 'sent';
}

/**
 * The stale library entry a request's asks show, while it is still in the library (a retired one is
 * not shown). Not on an ask sent back by a reviewer: the instructions are what the expert answers then.
 */
async function previousAnswer(config: Engine['config'], tx: Tx, request: RequestRecord): Promise<PreviousAnswer | undefined> {
  if (!request.refreshes) return undefined;
  const entry = await tx.answers.get(request.refreshes);
  if (!entry || entry.status === 'retired') return undefined;
  return { answer: entry.answer, expertName: entry.expert_name, verifiedAt: entry.verified_at, timeZone: config.org.timezone };
}

/**
 * The audit row of an ask that waits. Quiet hours keep their own row type (operators filter on it);
 * every other reason is `waiting_for_expert` with why and until (null: no time known yet).
 */
function waitAudit(requestId: string, askId: string, expertId: string, why: BlockReason, until: number | null, quietHours: readonly [string, string] | null, now: number): AuditEntry {
  const at = until === null ? null : iso(until);
  return why === 'quiet_hours'
    ? { request_id: requestId, at: now, type: 'quiet_hours_wait', actor: 'system', data: { ask_id: askId, expert_id: expertId, quiet_hours: quietHours, until: at } }
    : { request_id: requestId, at: now, type: 'waiting_for_expert', actor: 'system', data: { ask_id: askId, expert_id: expertId, why, until: at } };
}
