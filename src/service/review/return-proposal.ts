import type { ProposalRecord, RequestRecord } from '../../domain/records.js';
import { badRequest } from '../../errors.js';
import { answeredIt, proposalToDecide } from './decide-proposal.js';
import type { Tx } from '../../store/store.js';
import { audit, countOne, countSentBack, type Intake, type Routing, type Drafting, draftsQuestion, queueDraft, updateRequest } from '../engine/index.js';
import { planAsk, routeAndAsk } from '../routing/index.js';
import { updateReviewCard } from './review-channel.js';
import { isExpertOf, mayDecide, notAReviewer, ruleFor, trustedDecider, type Decider } from './review-rules.js';

export interface ReturnInput {
  decided_by: string;
  /** Required unless the proposal was reused from the library (then sending it back only says "ask an expert"). */
  instructions?: string | undefined;
  typed_by?: string | undefined;
  /** Who sends it back, with the identities review rules check; absent: a caller inside the service, trusted as an admin. */
  decider?: Decider | undefined;
}

/**
 * "Send back to the expert": the pending proposal is withdrawn (rejected with reason
 * `returned`, and consumers are not told of a rejection), the request goes back to `asked`, and the
 * same expert is asked again, in the same thread on Slack, with the reviewer's instructions after the
 * question (the six elements stay in order). The give-up clock keeps running from submission. A later
 * answer makes a new pending proposal; the returned one stays in the request's history.
 *
 * A proposal reused from the library has no expert to send it back to: returning it says "not a
 * match, ask an expert", and the request is routed as if nothing had matched.
 */
export async function returnProposal(engine: Intake, tx: Tx, proposalId: string, input: ReturnInput): Promise<ProposalRecord> {
  const now = engine.clock.now();
  const { proposal, pending } = await proposalToDecide(engine, tx, proposalId, input.decided_by);
  if (!pending) return proposal;
  const request = (await tx.requests.get(proposal.request_id))!;
  // Under a review rule only its reviewers may send it back, and doing so ends the vote.
  const rule = ruleFor(engine.review, request);
  const decider = input.decider ?? trustedDecider(input.decided_by);
  if (rule && !mayDecide(engine.review, rule, decider)) throw notAReviewer(rule, decider);
  if (rule && isExpertOf(engine.experts, decider, proposal.provenance.expert_id)) throw answeredIt(proposal);
  const reused = proposal.provenance.reused_from !== undefined;
  if (!reused && input.instructions === undefined) {
    throw badRequest('Say what the expert should change or add: instructions are required.', [{ path: 'instructions', message: 'is required' }]);
  }
  const decision = { decided_by: input.decided_by, note: input.instructions ?? null, reason: 'returned', decided_at: now };
  if (!(await tx.proposals.decide(proposalId, 'rejected', decision))) return (await tx.proposals.get(proposalId))!;
  if (reused) countOne(engine.counters.reuse, 'returned');
  if (rule) await tx.votes.clear(proposalId);

  await countSentBack(tx, request, proposal, now);
  await updateReviewCard(engine.review, tx, proposal, now);
  const typedBy = input.typed_by !== undefined ? { typed_by: input.typed_by } : {};
  if (!reused) {
    request.status = 'asked';
    await tx.requests.update(request.id, { status: 'asked', updated_at: now });
  }
  await audit(engine, tx, {
    request_id: request.id,
    at: now,
    type: reused ? 'reuse_declined' : 'returned',
    actor: `reviewer:${input.decided_by}`,
    data: reused
      ? { proposal_id: proposalId, answer_id: proposal.provenance.reused_from, note: decision.note, ...typedBy }
      : { proposal_id: proposalId, expert_id: proposal.provenance.expert_id, instructions: input.instructions, ...typedBy },
  });
  if (reused) await askAnExpert(engine, tx, request, now);
  else await planAsk(engine, tx, request, proposal.provenance.expert_id, 'return', now, input.instructions);
  return { ...proposal, status: 'rejected', decision };
}

/**
 * Routes a request whose library answer was declined as a new request would be: queued, drafted
 * when an LLM is configured, then asked, held or failed. Reuse is offered only at submit, so the
 * declined entry is never offered to it again.
 */
async function askAnExpert(engine: Routing & Drafting, tx: Tx, request: RequestRecord, now: number): Promise<void> {
  await updateRequest(tx, request, { status: 'queued', drafting: await draftsQuestion(engine, tx, request, now), updated_at: now });
  const outcome = await routeAndAsk(engine, tx, request, now);
  if (outcome !== 'failed' && request.drafting) await queueDraft(engine, tx, request, now);
}
