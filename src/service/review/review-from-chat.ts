import { AppError } from '../../errors.js';
import type { ReviewAction, ReviewOutcome } from '../../transport/transport.js';
import { decideOrVote } from './decide-proposal.js';
import { mayDecide, ruleFor, whoMayDecide, type Decider } from './review-rules.js';
import type { Tx } from '../../store/store.js';
import type { Engine, Intake } from '../engine/index.js';
import { returnProposal } from './return-proposal.js';

/** Where a reviewer decides outside the API: who may, and how they are named in `decided_by`. */
export interface ReviewSurface {
  /** The setting listing who may decide here (said in a refusal). */
  setting: 'chat.reviewers' | 'email.reviewers' | 'teams.reviewers';
  reviewers: (engine: Pick<Engine, 'review'>) => readonly string[];
  decidedBy: (a: ReviewAction) => string;
  /** The reviewer's identity as review rules name it (`slack:<id>`, `teams:<id>`, `email:<address>`). */
  identity: (a: ReviewAction) => string;
  /** Whether the reviewer is the expert who answered (who never decides their own answer). */
  answered: (engine: Pick<Engine, 'experts'>, expertId: string, a: ReviewAction) => boolean;
}

/** The Slack review channel: `chat.reviewers` by user id, named `<name> (slack:<user id>)`. */
export const SLACK_REVIEW: ReviewSurface = {
  setting: 'chat.reviewers',
  reviewers: (engine) => engine.review.reviewers,
  decidedBy: (a) => `${a.userName} (slack:${a.userId})`,
  identity: (a) => `slack:${a.userId}`,
  answered: (engine, expertId, a) => expertId === a.userId || engine.experts.get(expertId)?.slack === a.userId,
};

/** Review by email: `email.reviewers` by address, named by their bare address. */
export const EMAIL_REVIEW: ReviewSurface = {
  setting: 'email.reviewers',
  reviewers: (engine) => engine.review.emailReviewers,
  decidedBy: (a) => a.userId,
  identity: (a) => `email:${a.userId.toLowerCase()}`,
  answered: (engine, expertId, a) => engine.experts.get(expertId)?.email?.toLowerCase() === a.userId,
};

/** The Teams review channel: `teams.reviewers` by Entra object id, named `<name> (teams:<object id>)`. */
export const TEAMS_REVIEW: ReviewSurface = {
  setting: 'teams.reviewers',
  reviewers: (engine) => engine.review.teamsReviewers ?? [],
  decidedBy: (a) => `${a.userName} (teams:${a.userId})`,
  identity: (a) => `teams:${a.userId.toLowerCase()}`,
  answered: (engine, expertId, a) => engine.experts.get(expertId)?.teams?.toLowerCase() === a.userId,
};

/**
 * A decision from a review surface (the Slack review channel's buttons and forms, a mailed review
 * link). Only the surface's reviewers may decide there, never the expert who answered; anyone else is
 * told why and nothing changes. The event id is recorded in the same transaction, so a redelivered
 * click (or a link used again) decides once.
 */
export async function reviewFromChat(engine: Intake & Pick<Engine, 'libraryTopics'>, tx: Tx, a: ReviewAction, surface: ReviewSurface = SLACK_REVIEW): Promise<ReviewOutcome> {
  if (a.eventId !== undefined && !(await tx.chat.markEvent(a.eventId, engine.clock.now()))) {
    return { outcome: 'duplicate', message: 'Already handled.' };
  }
  const proposal = await tx.proposals.get(a.proposalId);
  // A proposal a review rule covers is decided by the rule's reviewers; any other by the surface's.
  const request = proposal ? await tx.requests.get(proposal.request_id) : undefined;
  const rule = request ? ruleFor(engine.review, request) : null;
  const decider: Decider = { by: surface.decidedBy(a), identities: [surface.identity(a)], admin: false };
  if (rule && !mayDecide(engine.review, rule, decider)) {
    return { outcome: 'refused', message: `Only the reviewers of the review rule "${rule.name}" may decide this one: ${whoMayDecide(rule)}; nothing changed.` };
  }
  if (!rule && !surface.reviewers(engine).includes(a.userId)) {
    return { outcome: 'refused', message: `Only the reviewers listed in ${surface.setting} can decide here; nothing changed.` };
  }
  if (!proposal) return { outcome: 'refused', message: 'This proposal no longer exists.' };
  if (surface.answered(engine, proposal.provenance.expert_id, a)) {
    return { outcome: 'refused', message: 'You answered this one, so another reviewer must decide it; nothing changed.' };
  }
  if (proposal.status !== 'pending') {
    return { outcome: 'already_decided', message: `Already ${proposal.status} by ${proposal.decision?.decided_by ?? 'someone'}; nothing changed.` };
  }
  const decidedBy = decider.by;
  let message = 'Done.';
  let waits = false;
  try {
    // In a savepoint: a decision refused half-way leaves nothing behind but the event id.
    await tx.savepoint(async (inner) => {
      if (a.action === 'return') await returnProposal(engine, inner, a.proposalId, { decided_by: decidedBy, instructions: a.instructions ?? '', decider });
      else {
        const outcome = await decideOrVote(engine, inner, a.proposalId, a.action === 'accept' ? 'accepted' : 'rejected', { decided_by: decidedBy, answer: a.answer, reason: a.reason, decider });
        // Under a rule the reviewer is told where the vote stands, and whether the proposal still waits.
        if (rule) {
          message = outcome.message;
          waits = outcome.proposal.status === 'pending';
        }
      }
    });
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return { outcome: 'refused', message: `${error.message} Nothing changed.` };
    throw error;
  }
  return { outcome: waits ? 'recorded' : 'decided', message, ...(rule ? { rule: rule.name } : {}) };
}

