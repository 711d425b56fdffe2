import { librarySourceLine } from '../../core/describe-source.js';
import { formatShortDuration } from '../../config/durations.js';
import type { ProposalRecord } from '../../domain/records.js';
import type { ReviewCard } from '../../transport/transport.js';
import type { Reads, Tx } from '../../store/store.js';
import { queueMessage, type Engine } from '../engine/index.js';
import { ruleFor } from './review-rules.js';
import { remindMissingVoters, stillToVote, type Reaching } from './rule-reviewers.js';

/**
 * The Slack review channel. Cards and their updates go through the message outbox in the
 * transaction that creates or decides the proposal; the card is rendered when the message goes out,
 * from the proposal as it stands then, so a card is never posted with buttons for a decided proposal.
 */
export async function postReviewCard(review: Engine['review'], tx: Tx, proposal: Pick<ProposalRecord, 'id' | 'request_id'>, now: number): Promise<void> {
  await queueChannelMessage(review, tx, 'review_card', proposal, now);
  // Review by email: one mail per reviewer, rendered (like a card) from the proposal as it stands when it goes out.
  for (const address of review.emailReviewers) {
    await queueMessage(tx, { expert_id: address, request_id: proposal.request_id, ask_id: null, proposal_id: proposal.id, purpose: 'review_mail', channel: 'email', text: `review_mail ${proposal.id}` }, now);
  }
}

/** Any decision, from any surface: the card loses its buttons and says who decided and when. */
export async function updateReviewCard(review: Engine['review'], tx: Tx, proposal: Pick<ProposalRecord, 'id' | 'request_id'>, now: number): Promise<void> {
  await queueChannelMessage(review, tx, 'review_update', proposal, now);
}

async function queueChannelMessage(review: Engine['review'], tx: Tx, purpose: 'review_card' | 'review_update', p: Pick<ProposalRecord, 'id' | 'request_id'>, now: number): Promise<void> {
  if (review.channel === null) return;
  await queueMessage(tx, { expert_id: '', request_id: p.request_id, ask_id: null, proposal_id: p.id, purpose, ...onChannel(review), text: `${purpose} ${p.id}` }, now);
}

/** The review channel's messages go to Teams when it is there; Slack's, as before, to the one channel that carries them. */
function onChannel(review: Engine['review']): { channel?: 'teams' } {
  return review.channelOn === 'teams' ? { channel: 'teams' } : {};
}

/** A proposal as the review channel shows it, at `now`; with `engine`, under a review rule, its votes and who has yet to vote. */
export async function reviewCardOf(reads: Reads, proposalId: string, now: number, engine?: Pick<Engine, 'review' | 'experts'>): Promise<ReviewCard | null> {
  const proposal = await reads.proposals.get(proposalId);
  const request = proposal && (await reads.requests.get(proposal.request_id));
  if (!proposal || !request) return null;
  const d = proposal.decision;
  const outcome = !d ? null : d.reason === 'returned' ? 'returned' : d.decided_by === 'expertq' ? 'withdrawn' : proposal.status === 'accepted' ? 'accepted' : 'rejected';
  const because = request.context.asked_because;
  const rule = engine ? ruleFor(engine.review, request) : null;
  const votes = rule ? await reads.votes.list(proposalId) : [];
  return {
    proposalId,
    question: request.question,
    consumerId: request.consumer_id,
    askedBecause: typeof because === 'string' ? because : null,
    expertId: proposal.provenance.expert_id,
    expertName: proposal.provenance.expert_name,
    answer: proposal.answer,
    source: librarySourceLine(proposal.provenance, proposal.confidence),
    originalQuestion: proposal.provenance.original_question ?? null,
    decision: d && outcome && {
      outcome,
      by: d.decided_by,
      at: new Date(d.decided_at).toISOString(),
      detail: outcome === 'returned' ? d.note : outcome === 'rejected' || outcome === 'withdrawn' ? d.reason : d.note,
    },
    overdue:
      !d && request.give_up_at <= now
        ? `Waiting for review past the request's give-up time (${formatShortDuration(request.routing_policy.give_up_after)} after it was asked): the consumer may have moved on. A decision still reaches it.`
        : null,
    review: rule && {
      rule: rule.name,
      approvalsNeeded: rule.approvals,
      votes: votes.map((v) => ({ by: v.by, decision: v.decision, at: new Date(v.at).toISOString() })),
      stillToVote: d ? [] : stillToVote(engine!.experts, rule, proposal.provenance.expert_id, votes),
    },
  };
}

const LAST_REMINDER = 'review.last_reminder_at';

/**
 * Reviewer nudges: when the oldest pending proposal has waited longer than
 * `review.remind_after`, one reminder (to the review channel, else a warning in the log), at most once
 * per `remind_after`, whatever the number of proposals. Returns whether it reminded.
 */
/** Whether a reminder may be due: the oldest pending proposal has waited `review.remind_after` (a read). */
export async function mayRemind(engine: Pick<Engine, 'store' | 'review'>, now: number): Promise<boolean> {
  const oldest = await engine.store.proposals.oldestPending();
  return oldest !== undefined && now - oldest.created_at >= engine.review.remindAfterMs;
}

export async function remindReviewers(engine: Pick<Engine, 'log' | 'counters'> & Reaching, tx: Tx, now: number): Promise<boolean> {
  const every = engine.review.remindAfterMs;
  // One indexed row per tick: the oldest pending proposal (ids sort by creation).
  const oldest = await tx.proposals.oldestPending();
  if (!oldest || now - oldest.created_at < every) return false;
  const last = Number((await tx.serviceState.get(LAST_REMINDER)) ?? Number.NEGATIVE_INFINITY);
  if (now - last < every) return false;
  await tx.serviceState.set(LAST_REMINDER, String(now));
  engine.counters.reviewReminders++;
  const pending = await tx.proposals.pending();
  const question = (await tx.requests.get(oldest.request_id))?.question ?? '';
  const text =
    `${pending.length} ${pending.length === 1 ? 'proposal waits' : 'proposals wait'} for review; the oldest for ` +
    `${formatShortDuration(now - oldest.created_at)}: "${question.length > 120 ? `${question.slice(0, 119)}…` : question}".`;
  if (engine.review.channel !== null) {
    await queueMessage(tx, { expert_id: '', request_id: oldest.request_id, ask_id: null, proposal_id: oldest.id, purpose: 'review_reminder', ...onChannel(engine.review), text }, now);
  }
  engine.log.warn({ pending: pending.length, oldest_proposal_id: oldest.id, waiting_ms: now - oldest.created_at }, `review reminder: ${text}`);
  if (engine.review.rules?.length) await remindRuleReviewers(engine, tx, pending, now);
  return true;
}

/**
 * With the reminder: each proposal a rule governs that has waited `remind_after` reminds the reviewers
 * whose vote is still missing directly (those the review channel does not reach), once per period.
 */
async function remindRuleReviewers(engine: Pick<Engine, 'log'> & Reaching, tx: Tx, pending: readonly ProposalRecord[], now: number): Promise<void> {
  for (const proposal of pending) {
    if (now - proposal.created_at < engine.review.remindAfterMs) continue;
    const request = await tx.requests.get(proposal.request_id);
    const rule = request && ruleFor(engine.review, request);
    if (!request || !rule) continue;
    const reminded = await remindMissingVoters(engine, tx, rule, request, proposal, `for ${formatShortDuration(now - proposal.created_at)}`, now);
    if (reminded > 0) engine.log.info({ proposal_id: proposal.id, rule: rule.name, reminded }, 'reminded the reviewers whose vote is missing');
  }
}

/** Cards whose request passed its give-up time while waiting for review are updated to say so, once. */
export async function noteOverdueCards(engine: Pick<Engine, 'review'>, tx: Tx, now: number): Promise<void> {
  if (engine.review.channel === null) return;
  for (const id of await tx.proposals.takeOverdueReviewCards(now)) {
    const proposal = await tx.proposals.get(id);
    if (proposal) await updateReviewCard(engine.review, tx, proposal, now);
  }
}
