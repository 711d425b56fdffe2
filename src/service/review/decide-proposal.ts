import { AppError, notFound } from '../../errors.js';
import type { ProposalRecord } from '../../domain/records.js';
import type { Reads, Tx } from '../../store/store.js';
import type { Engine } from '../engine/index.js';
import { applyDecision, type Deciding, type DecisionInput, type DecisionOutcome } from './apply-decision.js';
import { castVote } from './cast-vote.js';
import { isExpertOf, mayDecide, notAReviewer, ruleFor, trustedDecider } from './review-rules.js';
import { reviewerEdit } from './reviewer-edit.js';

export type { Deciding, DecisionInput, DecisionOutcome };

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
    // The expert who answered, reached by another of their identities, still never decides.
    if (isExpertOf(engine.experts, decider, proposal.provenance.expert_id)) throw answeredIt(proposal);
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
 * The proposal a decision is about: unknown → 404; already decided → returned as it is (the decision
 * is a no-op); pending → checked that the decider is not the expert who answered (409).
 */
export async function proposalToDecide(engine: Pick<Engine, 'experts'>, reads: Reads, proposalId: string, decidedBy: string): Promise<{ proposal: ProposalRecord; pending: boolean }> {
  const proposal = await reads.proposals.get(proposalId);
  if (!proposal) throw notFound('Proposal', proposalId);
  if (proposal.status !== 'pending') return { proposal, pending: false };
  // The registry as it is now, after the read above (`PUT /experts` swaps it whole).
  if (isAnsweringExpert(engine.experts, decidedBy, proposal)) {
    throw answeredIt(proposal);
  }
  return { proposal, pending: true };
}

/** The 409 for the expert who answered trying to decide their own answer. */
export const answeredIt = (proposal: ProposalRecord) =>
  new AppError('conflict', `${proposal.provenance.expert_name} answered this proposal and cannot decide it; another reviewer must.`);

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

