import { composeReplyFeedback, type ReplyFeedback } from '../../core/compose-feedback.js';
import { isSameReply, readReply } from '../../core/read-reply.js';
import type { AnswerRecord } from '../../domain/answers.js';
import { notFound } from '../../errors.js';
import { queueStructuring, closeAsk, expertName, tellExpert, tellInThread, audit, countPass, type Engine, type Routing, type Attendance } from '../engine/index.js';
import { placeWaiting, passOn } from '../routing/index.js';
import type { AskRecord, RequestRecord } from '../../domain/records.js';
import { createProposal, proposalFromAnswer } from '../review/index.js';
import type { Tx } from '../../store/store.js';

export interface ReplyInput {
  expert_id: string;
  text: string;
  request_id?: string | undefined;
}

export type ReplyOutcome = 'proposed' | 'late_reply' | 'muted' | 'skipped' | 'unmuted' | 'ignored';

export interface ReplyResult {
  request_id: string | null;
  ask_id: string | null;
  outcome: ReplyOutcome;
  proposal_id?: string;
}

/**
 * Handles an expert's message from any transport. A reply that frees
 * capacity (an answer, a skip, a mute, an unmute) gives waiting work its chance in the same
 * transaction: queued asks for the experts involved are sent and held requests placed at once.
 */
export async function receiveReply(engine: Routing & Pick<Engine, 'transportName' | 'review' | 'llm' | 'channels'>, tx: Tx, input: ReplyInput): Promise<ReplyResult> {
  const now = engine.clock.now();
  const result = await handleReply(engine, tx, input, now);
  if (result.outcome === 'unmuted') {
    await placeWaiting(engine, tx, new Set([input.expert_id]), now);
  } else if (result.outcome === 'proposed' || result.outcome === 'skipped' || result.outcome === 'muted') {
    const involved = result.request_id ? (await tx.asks.listFor(result.request_id)).map((a) => a.expert_id) : [];
    await placeWaiting(engine, tx, new Set([input.expert_id, ...involved]), now);
  }
  return result;
}

async function handleReply(engine: Attendance & Pick<Engine, 'clock' | 'transportName' | 'threadedTransport' | 'review' | 'llm' | 'channels'>, tx: Tx, input: ReplyInput, now: number): Promise<ReplyResult> {
  const kind = readReply(input.text);
  const actor = `expert:${input.expert_id}`;
  const ask = await tx.asks.findForReply(input.expert_id, input.request_id ?? null);
  if (kind === 'unmute') {
    if (!ask && !engine.experts.has(input.expert_id)) throw notFound('Expert', input.expert_id);
    await tx.asks.setMuted(input.expert_id, false, now);
    if (ask) await audit(engine, tx, { request_id: ask.request_id, at: now, type: 'unmuted', actor, data: {} });
    await tellExpert(engine, tx, input.expert_id, composeReplyFeedback({ outcome: 'unmuted' }), now);
    return { request_id: ask?.request_id ?? null, ask_id: ask?.id ?? null, outcome: 'unmuted' };
  }
  if (!ask && kind === 'mute' && input.request_id === undefined && engine.experts.has(input.expert_id)) {
    // A standing preference: it needs no open ask.
    await tx.asks.setMuted(input.expert_id, true, now);
    await tellExpert(engine, tx, input.expert_id, composeReplyFeedback({ outcome: 'muted', passedTo: null, hadAsk: false }), now);
    return { request_id: null, ask_id: null, outcome: 'muted' };
  }
  if (!ask) {
    if (!engine.experts.has(input.expert_id) && input.request_id === undefined) throw notFound('Expert', input.expert_id);
    throw input.request_id === undefined
      ? notFound('Open ask for expert', input.expert_id)
      : notFound(`Ask of expert "${input.expert_id}" on request`, input.request_id);
  }
  const request = (await tx.requests.get(ask.request_id))!;
  const base = { request_id: request.id, ask_id: ask.id };
  const decided = request.status === 'accepted' || request.status === 'rejected';
  const reply = async (result: Omit<ReplyResult, 'request_id' | 'ask_id'>, feedback: ReplyFeedback): Promise<ReplyResult> => {
    await tellInThread(engine, tx, ask, composeReplyFeedback(feedback), now);
    return { ...base, ...result };
  };

  if (kind === 'answer') {
    const result = await takeAnswer(engine, tx, request, ask, input.text, now);
    return await reply(result, { outcome: result.outcome === 'proposed' ? 'proposed' : 'late_reply' });
  }

  if (decided) {
    await audit(engine, tx, { request_id: request.id, at: now, type: 'ignored_reply', actor, data: { ask_id: ask.id, text: kind } });
    return await reply({ outcome: 'ignored' }, { outcome: 'ignored' });
  }
  if (kind === 'mute') {
    await tx.asks.setMuted(ask.expert_id, true, now);
    await audit(engine, tx, { request_id: request.id, at: now, type: 'muted', actor, data: { ask_id: ask.id } });
    await countPass(tx, request, ask.expert_id, 'mutes', now);
    const live = ask.state === 'open' || ask.state === 'queued';
    const passedTo = live ? await passOn(engine, tx, request, ask, 'mute', now) : null;
    return await reply({ outcome: 'muted' }, { outcome: 'muted', passedTo: passedTo && expertName(engine.experts, passedTo), hadAsk: live });
  }
  if (ask.state !== 'open' && ask.state !== 'queued') {
    await audit(engine, tx, { request_id: request.id, at: now, type: 'ignored_reply', actor, data: { ask_id: ask.id, text: kind, ask_state: ask.state } });
    return await reply({ outcome: 'ignored' }, { outcome: 'ignored' });
  }
  const passedTo = await passOn(engine, tx, request, ask, 'skip', now);
  return await reply({ outcome: 'skipped' }, { outcome: 'skipped', passedTo: passedTo && expertName(engine.experts, passedTo) });
}

async function takeAnswer(
  engine: Pick<Engine, 'clock' | 'experts' | 'transportName' | 'threadedTransport' | 'review' | 'llm' | 'channels'>,
  tx: Tx,
  request: RequestRecord,
  ask: AskRecord,
  text: string,
  now: number,
): Promise<{ outcome: ReplyOutcome; proposal_id?: string }> {
  const actor = `expert:${ask.expert_id}`;
  await audit(engine, tx, { request_id: request.id, at: now, type: 'replied', actor, data: { ask_id: ask.id, text } });
  const answerable = ask.state === 'open' || ask.state === 'escalated';
  const stillOpen = request.status === 'asked' || request.status === 'escalated';
  if (!answerable || !stillOpen) {
    await audit(engine, tx, { request_id: request.id, at: now, type: 'late_reply', actor, data: { ask_id: ask.id, request_status: request.status } });
    return { outcome: 'late_reply' };
  }

  const confirmed = await confirmedEntry(tx, request, ask, text);
  // Provenance first: it records whether the ask had escalated, before the ask is closed.
  const proposal = proposalFromAnswer(engine, ask, confirmed ? confirmed.answer : text, now);
  if (confirmed) proposal.provenance.refreshes = confirmed.id;
  await closeAsk(engine, tx, ask, 'answered', { why: 'answered' }, now);
  // Whoever else is still being asked on this request is released: the first reply wins.
  for (const other of await tx.asks.listFor(request.id)) {
    if (other.id !== ask.id && (other.state === 'open' || other.state === 'queued')) {
      await closeAsk(engine, tx, other, 'released', { why: 'answered_elsewhere', by: proposal.provenance.expert_name }, now);
    }
  }
  if (confirmed) {
    // The entry's answer is already structured (and was reviewed once): nothing to structure.
    await createProposal(engine, tx, request, { ...proposal, structured: confirmed.structured ?? { text: confirmed.answer }, confidence: null, created_at: now }, now);
  } else if (engine.llm) {
    // The reply is committed now; the proposal appears when structuring ends.
    await queueStructuring(tx, request, proposal, now);
  } else {
    await createProposal(engine, tx, request, { ...proposal, structured: { text }, confidence: null, created_at: now }, now);
  }
  return { outcome: 'proposed', proposal_id: proposal.id };
}

/**
 * The library entry an answer `same` confirms: the stale entry the ask showed (not one sent back by a
 * reviewer, which shows the instructions instead), while it is still in the library. Null when the
 * answer is anything else, or the ask showed no previous answer: then `same` is taken as written.
 */
async function confirmedEntry(tx: Tx, request: RequestRecord, ask: AskRecord, text: string): Promise<AnswerRecord | null> {
  if (!request.refreshes || ask.instructions || !isSameReply(text)) return null;
  const entry = await tx.answers.get(request.refreshes);
  return entry && entry.status !== 'retired' ? entry : null;
}
