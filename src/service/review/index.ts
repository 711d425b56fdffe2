/**
 * Proposals and their review: create one (posting its card), the queue, accept/edit/reject, send back,
 * review from chat, and the review channel's cards and reminders.
 */
export { createProposal, proposalFromAnswer } from './create-proposal.js';
export { decideOrVote, decideProposal, type DecisionInput, type DecisionOutcome } from './decide-proposal.js';
export { askedQuestion, proposalBody, type ProposalBody } from './proposal-body.js';
export { type QueueItem, type QueueViewer, queueView } from './queue-view.js';
export { castVote, standing } from './cast-vote.js';
export { entryIdentities, identityOf, mayDecide, personOf, ruleFor, trustedDecider, type Decider, type ReviewRule } from './review-rules.js';
export { reviewedProposals, showsTo, type ReviewedProposal, type VoteBody } from './review-view.js';
export { type ReturnInput, returnProposal } from './return-proposal.js';
export { mayRemind, noteOverdueCards, remindReviewers, reviewCardOf, updateReviewCard } from './review-channel.js';
export { EMAIL_REVIEW, reviewFromChat, type ReviewSurface, SLACK_REVIEW, TEAMS_REVIEW } from './review-from-chat.js';
