import { composeAcceptedNotice } from '../../core/compose-ask.js';
import type { ProposalRecord, RequestRecord } from '../../domain/records.js';
import type { Tx } from '../../store/store.js';
import { audit, countDecision, countOne, DECISION_TIMES_KEPT, emitEvent, queueMessage, type Engine, type Roster } from '../engine/index.js';
import { recordAnswer } from '../library/index.js';
import { proposalBody } from './proposal-body.js';
import { updateReviewCard } from './review-channel.js';
import { ruleFor, type Decider } from './review-rules.js';
import type { ReviewerEdit } from './reviewer-edit.js';

/** What deciding a proposal reads. */
export type Deciding = Roster & Pick<Engine, 'clock' | 'review' | 'counters' | 'llm' | 'libraryTopics'>;

export interface DecisionInput {
  decided_by: string;
  note?: string | undefined;
  reason?: string | undefined;
  /** Who typed the decision when a named token decided (its name is `decided_by`). */
  typed_by?: string | undefined;
  /** Accept only: the reviewer's corrected answer; the expert's text is kept. */
  answer?: string | undefined;
  /** Accept only: the reviewer's structured form, validated against the kind's schema. */
  structured?: unknown;
  /** Who decides, with the identities review rules check; absent: a caller inside the service, trusted as an admin. */
  decider?: Decider | undefined;
}

/** What a decision did: the proposal as it is now, and what happened and what remains, in words. */
export interface DecisionOutcome {
  proposal: ProposalRecord;
  message: string;
}

/**
 * Decides a pending proposal for good, with `edit` applied when given: the request follows, the review
 * card is updated, `decided` is audited, and consumers get `proposal_accepted` (the expert is thanked)
 * or `proposal_rejected`. Accepting an answer reused from the library counts the reuse on its entry
 * instead of adding an entry, and messages nobody. A proposal decided meanwhile is returned as it is.
 */
export async function applyDecision(
  engine: Deciding,
  tx: Tx,
  proposal: ProposalRecord,
  request: RequestRecord,
  status: 'accepted' | 'rejected',
  input: DecisionInput,
  edit: ReviewerEdit | null,
): Promise<ProposalRecord> {
  const now = engine.clock.now();
  const proposalId = proposal.id;
  const decision = { decided_by: input.decided_by, note: input.note ?? null, reason: input.reason ?? null, decided_at: now };
  if (!(await tx.proposals.decide(proposalId, status, decision))) return (await tx.proposals.get(proposalId))!;
  // The library entry this proposal was made of, if any.
  const reusedFrom = proposal.provenance.reused_from;
  if (reusedFrom !== undefined) countOne(engine.counters.reuse, status);
  const times = engine.counters.decisionTimes;
  times.push({ rule: ruleFor(engine.review, request)?.name ?? 'none', seconds: Math.max(0, now - proposal.created_at) / 1000 });
  if (times.length > DECISION_TIMES_KEPT) times.shift();

  let decided: ProposalRecord = { ...proposal, status, decision };
  if (edit) {
    decided = { ...decided, ...edit };
    await tx.proposals.revise(proposalId, edit);
  }
  // Edited now, or while reviewers were voting.
  const edited = decided.original_answer !== null && decided.original_answer !== undefined;
  await countDecision(tx, request, proposal, status, now);
  await tx.requests.update(request.id, { status, updated_at: now });
  await updateReviewCard(engine.review, tx, proposal, now);
  await audit(engine, tx, {
    request_id: request.id,
    at: now,
    type: 'decided',
    actor: `reviewer:${input.decided_by}`,
    data: {
      proposal_id: proposalId,
      status,
      note: decision.note,
      reason: decision.reason,
      ...(input.typed_by !== undefined ? { typed_by: input.typed_by } : {}),
      ...(edited && status === 'accepted' ? { edited: true, original_answer: decided.original_answer, answer: decided.answer } : {}),
    },
  });
  if (status === 'accepted' && reusedFrom !== undefined) {
    // A library answer: the entry already holds it, so it counts one more reuse; nobody was asked, so nobody is told.
    await tx.answers.countReuse(reusedFrom);
    await emitEvent(tx, request, 'proposal_accepted', { proposal: proposalBody(decided) }, now);
  } else if (status === 'accepted') {
    await recordAnswer(engine.libraryTopics, tx, request, decided, now);
    await emitEvent(tx, request, 'proposal_accepted', { proposal: proposalBody(decided) }, now);
    const expert = engine.experts.get(proposal.provenance.expert_id);
    await queueMessage(
      tx,
      {
        expert_id: proposal.provenance.expert_id,
        request_id: request.id,
        ask_id: proposal.provenance.ask_id,
        purpose: 'accepted',
        // On the channel the question went out on.
        channel: proposal.provenance.ask_id ? ((await tx.asks.get(proposal.provenance.ask_id))?.channel ?? null) : null,
        text: composeAcceptedNotice({
          orgName: engine.config.org.name,
          expertName: expert?.name ?? proposal.provenance.expert_name,
          question: request.asked_question ?? request.question,
          edited,
        }),
      },
      now,
    );
  } else {
    await emitEvent(tx, request, 'proposal_rejected', { proposal: proposalBody(decided), reason: input.reason }, now);
  }
  return decided;
}
