import { AppError } from '../../errors.js';
import type { ReviewAction, ReviewOutcome } from '../../transport/transport.js';
import { decideProposal } from './decide-proposal.js';
import type { Tx } from '../../store/store.js';
import type { Engine, Intake } from '../engine/index.js';
import { returnProposal } from './return-proposal.js';

/**
 * A decision from the review channel's buttons and forms. Only `chat.reviewers` may decide there,
 * never the expert who answered; anyone else is told why and nothing changes. `decided_by` is
 * `<name> (slack:<user id>)`. The event id is recorded in the same transaction, so a redelivered click
 * decides once.
 */
export async function reviewFromChat(engine: Intake & Pick<Engine, 'libraryTopics'>, tx: Tx, a: ReviewAction): Promise<ReviewOutcome> {
  if (a.eventId !== undefined && !(await tx.chat.markEvent(a.eventId, engine.clock.now()))) {
    return { outcome: 'duplicate', message: 'Already handled.' };
  }
  if (!engine.review.reviewers.includes(a.userId)) {
    return { outcome: 'refused', message: 'Only the reviewers listed in chat.reviewers can decide here; nothing changed.' };
  }
  const proposal = await tx.proposals.get(a.proposalId);
  if (!proposal) return { outcome: 'refused', message: 'This proposal no longer exists.' };
  if (proposal.provenance.expert_id === a.userId) {
    return { outcome: 'refused', message: 'You answered this one, so another reviewer must decide it; nothing changed.' };
  }
  if (proposal.status !== 'pending') {
    return { outcome: 'already_decided', message: `Already ${proposal.status} by ${proposal.decision?.decided_by ?? 'someone'}; nothing changed.` };
  }
  const decidedBy = `${a.userName} (slack:${a.userId})`;
  try {
    // In a savepoint: a decision refused half-way leaves nothing behind but the event id.
    await tx.savepoint((inner) =>
      a.action === 'return'
        ? returnProposal(engine, inner, a.proposalId, { decided_by: decidedBy, instructions: a.instructions ?? '' })
        : decideProposal(engine, inner, a.proposalId, a.action === 'accept' ? 'accepted' : 'rejected', { decided_by: decidedBy, answer: a.answer, reason: a.reason }),
    );
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return { outcome: 'refused', message: `${error.message} Nothing changed.` };
    throw error;
  }
  return { outcome: 'decided', message: 'Done.' };
}

