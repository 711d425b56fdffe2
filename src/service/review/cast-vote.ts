import type { ProposalRecord, RequestRecord } from '../../domain/records.js';
import type { Tx, VoteRecord } from '../../store/store.js';
import { audit, countOne } from '../engine/index.js';
import { applyDecision, type Deciding, type DecisionInput, type DecisionOutcome } from './apply-decision.js';
import { entryText, isRequired, personOf, type Decider, type ReviewRule } from './review-rules.js';
import { reviewerEdit } from './reviewer-edit.js';
import { updateReviewCard } from './review-channel.js';

/** A pending proposal a rule governs, with its request and the person voting on it. */
export interface Ballot {
  proposal: ProposalRecord;
  request: RequestRecord;
  rule: ReviewRule;
  decider: Decider;
}

/**
 * A reviewer's vote on a proposal a review rule governs. Each person votes once (a second vote answers
 * the proposal as it is); the proposal is accepted, and delivered once, when `approvals` distinct
 * people accepted and, with `require`, one of those is a required sign-off; a rejection rejects at once
 * under `veto`, else when `approvals` people rejected. An accept with an edit changes the text being
 * voted on: earlier votes were for another text, so they are cleared (`votes_reset`) and the editor's
 * accept is the first of the new text. On PostgreSQL the proposal's row is locked before (see
 * `proposalToDecide`), so concurrent votes are counted one after the other.
 */
export async function castVote(engine: Deciding, tx: Tx, ballot: Ballot, status: 'accepted' | 'rejected', input: DecisionInput): Promise<DecisionOutcome> {
  const { request, rule, decider } = ballot;
  let proposal = ballot.proposal;
  const now = engine.clock.now();
  const person = personOf(engine.experts, rule, decider);
  const edit = status === 'accepted' ? await reviewerEdit(engine.llm, tx, proposal, request, input) : null;
  if (edit) {
    await tx.proposals.revise(proposal.id, edit);
    proposal = { ...proposal, ...edit };
    const cleared = await tx.votes.clear(proposal.id);
    if (cleared > 0) {
      await audit(engine, tx, {
        request_id: request.id, at: now, type: 'votes_reset', actor: `reviewer:${input.decided_by}`,
        data: { proposal_id: proposal.id, rule: rule.name, cleared, answer: proposal.answer, original_answer: proposal.original_answer },
      });
    }
  }
  const vote: VoteRecord = {
    proposal_id: proposal.id,
    by: input.decided_by,
    person,
    decision: status === 'accepted' ? 'accept' : 'reject',
    note: input.note ?? null,
    reason: input.reason ?? null,
    required: isRequired(rule, decider),
    at: now,
  };
  if (!(await tx.votes.add(vote))) {
    const votes = await tx.votes.list(proposal.id);
    const mine = votes.find((v) => v.person === person)!;
    return { proposal, message: `You already voted to ${mine.decision} this proposal; nothing changed. ${standing(rule, votes)}` };
  }
  countOne(engine.counters.reviewVotes, vote.decision);
  await audit(engine, tx, {
    request_id: request.id, at: now, type: 'vote', actor: `reviewer:${input.decided_by}`,
    data: {
      proposal_id: proposal.id, rule: rule.name, decision: vote.decision, note: vote.note, reason: vote.reason,
      ...(input.typed_by !== undefined ? { typed_by: input.typed_by } : {}),
    },
  });
  const votes = await tx.votes.list(proposal.id);
  const accepts = votes.filter((v) => v.decision === 'accept');
  const rejects = votes.filter((v) => v.decision === 'reject');
  if (vote.decision === 'reject' && (rule.veto || rejects.length >= rule.approvals)) {
    const decided = await applyDecision(engine, tx, proposal, request, 'rejected', input, null);
    const why = rule.veto ? `one rejection rejects under the review rule "${rule.name}"` : `${rejects.length} of ${rule.approvals} reviewers rejected it`;
    return { proposal: decided, message: `Rejected: ${why}.` };
  }
  if (vote.decision === 'accept' && accepts.length >= rule.approvals && signedOff(rule, accepts)) {
    await audit(engine, tx, {
      request_id: request.id, at: now, type: 'quorum_met', actor: 'system',
      data: { proposal_id: proposal.id, rule: rule.name, approvals: rule.approvals, accepted_by: accepts.map((v) => v.by) },
    });
    const decided = await applyDecision(engine, tx, proposal, request, 'accepted', input, null);
    return { proposal: decided, message: `Accepted: ${accepts.length} of ${rule.approvals} approval${rule.approvals === 1 ? '' : 's'} under the review rule "${rule.name}"; it is delivered.` };
  }
  // The vote changed what the review card shows: it is updated, as a decision updates it.
  await updateReviewCard(engine.review, tx, proposal, now);
  return { proposal, message: `${vote.decision === 'accept' ? 'Approval' : 'Rejection'} recorded: ${standing(rule, votes)}` };
}

/** Whether the accepts include a required sign-off (always, for a rule that requires none). */
const signedOff = (rule: ReviewRule, accepts: readonly VoteRecord[]) => rule.require.length === 0 || accepts.some((v) => v.required);

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

/**
 * Where the vote stands, in words: "1 of 2, waiting for a second reviewer", and for a rule with
 * `require`, whether its sign-off is still missing; rejections are counted when they do not veto.
 */
export function standing(rule: ReviewRule, votes: readonly VoteRecord[]): string {
  const accepts = votes.filter((v) => v.decision === 'accept');
  const missing = Math.max(0, rule.approvals - accepts.length);
  const waits: string[] = [];
  if (missing === 1) waits.push(`a ${ORDINALS[accepts.length] ?? `${accepts.length + 1}th`} reviewer`);
  else if (missing > 1) waits.push(`${missing} more reviewers`);
  if (!signedOff(rule, accepts)) waits.push(`a sign-off from one of ${rule.require.map(entryText).join(', ')}`);
  const rejects = votes.length - accepts.length;
  const rejected = !rule.veto && rejects > 0 ? `; ${rejects} of ${rule.approvals} rejections needed to reject` : '';
  return `${accepts.length} of ${rule.approvals}, waiting for ${waits.join(' and ')}${rejected}.`;
}
