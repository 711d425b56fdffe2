import { composeAcceptedNotice } from '../core/compose-ask.js';
import { notFound } from '../errors.js';
import type { ProposalRecord } from '../store/records.js';
import { audit, emitEvent, queueMessage, type Engine } from './engine.js';
import { proposalBody } from './views.js';

export interface DecisionInput {
  decided_by: string;
  note?: string | undefined;
  reason?: string | undefined;
}

/**
 * Accepts or rejects a pending proposal (seed: States and transitions). Atomic: the conditional
 * update lets exactly one of several concurrent decisions win; the others are no-ops that return the
 * decided proposal, and events are written once.
 */
export function decideProposal(
  engine: Engine,
  proposalId: string,
  status: 'accepted' | 'rejected',
  input: DecisionInput,
): ProposalRecord {
  const now = engine.clock.now();
  return engine.store.transaction(() => {
    const proposal = engine.store.getProposal(proposalId);
    if (!proposal) throw notFound('Proposal', proposalId);
    const decision = { decided_by: input.decided_by, note: input.note ?? null, reason: input.reason ?? null, decided_at: now };
    if (!engine.store.decideProposal(proposalId, status, decision)) return proposal;

    const decided: ProposalRecord = { ...proposal, status, decision };
    const request = engine.store.getRequest(proposal.request_id)!;
    engine.store.updateRequest(request.id, { status, updated_at: now });
    audit(engine, {
      request_id: request.id,
      at: now,
      type: 'decided',
      actor: `reviewer:${input.decided_by}`,
      data: { proposal_id: proposalId, status, note: decision.note, reason: decision.reason },
    });
    if (status === 'accepted') {
      emitEvent(engine, request, 'proposal_accepted', { proposal: proposalBody(decided) }, now);
      const expert = engine.experts.get(proposal.provenance.expert_id);
      queueMessage(
        engine,
        {
          expert_id: proposal.provenance.expert_id,
          request_id: request.id,
          ask_id: proposal.provenance.ask_id,
          purpose: 'accepted',
          text: composeAcceptedNotice({
            orgName: engine.config.org.name,
            expertName: expert?.name ?? proposal.provenance.expert_name,
            question: request.asked_question ?? request.question,
          }),
        },
        now,
      );

    } else {
      emitEvent(engine, request, 'proposal_rejected', { proposal: proposalBody(decided), reason: input.reason }, now);
    }
    return decided;
  });
}
