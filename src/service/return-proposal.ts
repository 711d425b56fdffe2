import type { ProposalRecord } from '../domain/records.js';
import { proposalToDecide } from './decide-proposal.js';
import type { Tx } from '../store/store.js';
import { reusedFrom } from '../domain/reuse.js';
import { audit, countOne, type Engine } from './engine.js';
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
export async function returnProposal(engine: Engine, tx: Tx, proposalId: string, input: ReturnInput): Promise<ProposalRecord> {
  const now = engine.clock.now();
  const { proposal, pending } = await proposalToDecide(engine, tx, proposalId, input.decided_by);
  if (!pending) return proposal;
  const decision = { decided_by: input.decided_by, note: input.instructions, reason: 'returned', decided_at: now };
  if (!(await tx.proposals.decide(proposalId, 'rejected', decision))) return (await tx.proposals.get(proposalId))!;
  if (reusedFrom(proposal.provenance) !== null) countOne(engine.counters.reuse, 'returned');

  const request = (await tx.requests.get(proposal.request_id))!;
  request.status = 'asked';
  await tx.requests.update(request.id, { status: 'asked', updated_at: now });
  await updateReviewCard(engine, tx, proposal, now);
  await audit(engine, tx, {
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
  await planAsk(engine, tx, request, proposal.provenance.expert_id, 'return', now, input.instructions);
  return { ...proposal, status: 'rejected', decision };
}
