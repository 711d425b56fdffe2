import type { ProposalRecord } from '../domain/records.js';
import { proposalToDecide } from './decide-proposal.js';
import { audit, type Engine } from './engine.js';
import { planAsk } from './place-asks.js';
import { updateReviewCard } from './review-channel.js';

export interface ReturnInput {
  decided_by: string;
  instructions: string;
  typed_by?: string | undefined;
}

/**
 * "Send back to the expert": the pending proposal is withdrawn (rejected with reason
 * `returned`, and consumers are not told of a rejection), the request goes back to `asked`, and the
 * same expert is asked again, in the same thread on Slack, with the reviewer's instructions after the
 * question (the six elements stay in order). The give-up clock keeps running from submission. A later
 * answer makes a new pending proposal; the returned one stays in the request's history.
 */
export function returnProposal(engine: Engine, proposalId: string, input: ReturnInput): ProposalRecord {
  const now = engine.clock.now();
  return engine.store.transaction(() => {
    const { proposal, pending } = proposalToDecide(engine, proposalId, input.decided_by);
    if (!pending) return proposal;
    const decision = { decided_by: input.decided_by, note: input.instructions, reason: 'returned', decided_at: now };
    if (!engine.store.decideProposal(proposalId, 'rejected', decision)) return engine.store.getProposal(proposalId)!;

    const request = engine.store.getRequest(proposal.request_id)!;
    request.status = 'asked';
    engine.store.updateRequest(request.id, { status: 'asked', updated_at: now });
    updateReviewCard(engine, proposal, now);
    audit(engine, {
      request_id: request.id,
      at: now,
      type: 'returned',
      actor: `reviewer:${input.decided_by}`,
      data: {
        proposal_id: proposalId,
        expert_id: proposal.provenance.expert_id,
        instructions: input.instructions,
        ...(input.typed_by !== undefined ? { typed_by: input.typed_by } : {}),
      },
    });
    planAsk(engine, request, proposal.provenance.expert_id, 'return', now, input.instructions);
    return { ...proposal, status: 'rejected', decision };
  });
}
