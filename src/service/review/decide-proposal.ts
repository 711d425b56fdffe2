import { composeAcceptedNotice } from '../../core/compose-ask.js';
import { AppError, notFound } from '../../errors.js';
import type { ProposalRecord, RequestRecord } from '../../domain/records.js';
import type { Reads, Tx } from '../../store/store.js';
import { audit, countOne, emitEvent, queueMessage, type Engine, type Roster } from '../engine/index.js';
import { updateReviewCard } from './review-channel.js';
import { proposalBody } from './proposal-body.js';
import { recordAnswer } from '../library/index.js';
import { castVote } from './cast-vote.js';
import { mayDecide, notAReviewer, ruleFor, trustedDecider, type Decider } from './review-rules.js';
import { reviewerEdit, type ReviewerEdit } from './reviewer-edit.js';

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

/** Accepts or rejects a pending proposal (see `decideOrVote`); the proposal as it is afterwards. */
export async function decideProposal(engine: Deciding, tx: Tx, proposalId: string, status: 'accepted' | 'rejected', input: DecisionInput): Promise<ProposalRecord> {
  return (await decideOrVote(engine, tx, proposalId, status, input)).proposal;
}

/**
 * Accepts or rejects a pending proposal. A proposal a review rule covers takes the decider's vote
 * instead, from the rule's reviewers only (403 naming the rule otherwise), and is decided once its
 * votes say so (`castVote`). Atomic: the conditional update lets exactly one of several concurrent
 * decisions win; the others are no-ops that return the decided proposal, and events are written once.
 * The expert who answered cannot decide their own proposal (409). An accept may carry the reviewer's
 * edit: consumers get the edited answer, and the record keeps the expert's text (`original_answer`)
 * and who edited it (`provenance.edited_by`).
 */
export async function decideOrVote(engine: Deciding, tx: Tx, proposalId: string, status: 'accepted' | 'rejected', input: DecisionInput): Promise<DecisionOutcome> {
  const { proposal, pending } = await proposalToDecide(engine, tx, proposalId, input.decided_by);
  if (!pending) return { proposal, message: alreadyDecided(proposal) };
  const request = (await tx.requests.get(proposal.request_id))!;
  const rule = ruleFor(engine.review, request);
  if (rule) {
    const decider = input.decider ?? trustedDecider(input.decided_by);
    if (!mayDecide(engine.review, rule, decider)) throw notAReviewer(rule, decider);
    return castVote(engine, tx, { proposal, request, rule, decider }, status, input);
  }
  const edit = status === 'accepted' ? await reviewerEdit(engine.llm, tx, proposal, request, input) : null;
  const decided = await applyDecision(engine, tx, proposal, request, status, input, edit);
  return { proposal: decided, message: decided.status === status ? `${status === 'accepted' ? 'Accepted' : 'Rejected'}.` : alreadyDecided(decided) };
}

/** The answer to a decision on a proposal already decided or withdrawn: nothing changed. */
export function alreadyDecided(proposal: ProposalRecord): string {
  return `Already ${proposal.status} by ${proposal.decision?.decided_by ?? 'someone'}; nothing changed.`;
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

  let decided: ProposalRecord = { ...proposal, status, decision };
  if (edit) {
    decided = { ...decided, ...edit };
    await tx.proposals.revise(proposalId, edit);
  }
  // Edited now, or while reviewers were voting.
  const edited = decided.original_answer !== null && decided.original_answer !== undefined;
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

/**
 * The proposal a decision is about: unknown → 404; already decided → returned as it is (the decision
 * is a no-op); pending → checked that the decider is not the expert who answered (409).
 */
export async function proposalToDecide(engine: Pick<Engine, 'experts'>, reads: Reads, proposalId: string, decidedBy: string): Promise<{ proposal: ProposalRecord; pending: boolean }> {
  const proposal = await reads.proposals.get(proposalId);
  if (!proposal) throw notFound('Proposal', proposalId);
  if (proposal.status !== 'pending') return { proposal, pending: false };
  // The registry as it is now, after the read above (`PUT /experts` swaps it whole).
  if (isAnsweringExpert(engine.experts, decidedBy, proposal)) {
    throw new AppError('conflict', `${proposal.provenance.expert_name} answered this proposal and cannot decide it; another reviewer must.`);
  }
  return { proposal, pending: true };
}

/**
 * Whether the decider is the expert who answered: people, not strings, are compared. The decider
 * (a token's name, a typed `decided_by`, or a chat user as "<name> (slack:<id>)") matches the expert's
 * id or name, as recorded on the proposal or in the registry now, ignoring case and surrounding spaces.
 */
export function isAnsweringExpert(experts: Engine['experts'], decidedBy: string, proposal: ProposalRecord): boolean {
  const fold = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();
  const expert = proposal.provenance;
  const them = new Set([expert.expert_id, expert.expert_name, experts.get(expert.expert_id)?.name ?? expert.expert_name].map(fold));
  const chatUser = /^(.*)\((?:slack|chat):([^)]+)\)\s*$/.exec(decidedBy);
  const decider = chatUser ? [decidedBy, chatUser[1]!, chatUser[2]!] : [decidedBy];
  return decider.some((d) => them.has(fold(d)));
}

