import { AppError } from '../errors.js';
import type { ReviewAction, ReviewOutcome } from '../transport/transport.js';
import { decideProposal } from './decide-proposal.js';
import type { Engine } from './engine.js';
import { returnProposal } from './return-proposal.js';

/**
 * A decision from the review channel's buttons and forms. Only `chat.reviewers` may decide there,
 * never the expert who answered; anyone else is told why and nothing changes. `decided_by` is
 * `<name> (slack:<user id>)`. The event id is recorded in the same transaction, so a redelivered click
 * decides once.
 */
export function reviewFromChat(engine: Engine, a: ReviewAction): ReviewOutcome {
  return engine.store.transaction(() => {
    if (a.eventId !== undefined && !engine.store.markChatEvent(a.eventId, engine.clock.now())) {
      return { outcome: 'duplicate', message: 'Already handled.' };
    }
    if (!engine.review.reviewers.includes(a.userId)) {
      return { outcome: 'refused', message: 'Only the reviewers listed in chat.reviewers can decide here; nothing changed.' };
    }
    const proposal = engine.store.getProposal(a.proposalId);
    if (!proposal) return { outcome: 'refused', message: 'This proposal no longer exists.' };
    if (proposal.provenance.expert_id === a.userId) {
      return { outcome: 'refused', message: 'You answered this one, so another reviewer must decide it; nothing changed.' };
    }
    if (proposal.status !== 'pending') {
      return { outcome: 'already_decided', message: `Already ${proposal.status} by ${proposal.decision?.decided_by ?? 'someone'}; nothing changed.` };
    }
    const decidedBy = `${a.userName} (slack:${a.userId})`;
    try {
      if (a.action === 'return') returnProposal(engine, a.proposalId, { decided_by: decidedBy, instructions: a.instructions ?? '' });
      else decideProposal(engine, a.proposalId, a.action === 'accept' ? 'accepted' : 'rejected', { decided_by: decidedBy, answer: a.answer, reason: a.reason });
    } catch (error) {
      if (error instanceof AppError && error.status < 500) return { outcome: 'refused', message: `${error.message} Nothing changed.` };
      throw error;
    }
    return { outcome: 'decided', message: 'Done.' };
  });
}

