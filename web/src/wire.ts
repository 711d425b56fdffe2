import type { Proposal, RequestRecord as ServedRequest } from '../../src/wire/types.js';

/** The API's wire shapes, inferred from the server's own zod schemas (types only: nothing is bundled). */
export type { Answer, AnswerStats, AuditEntry, ErrorBody, Expert, Me, Page, Proposal, QueueItem, SignInState, Waiting } from '../../src/wire/types.js';
export type { InsightFigures, InsightsQuery, InsightsView } from '../../src/wire/insight-schemas.js';

/** An ask that is out now (open, or queued to go out). */
export type AskedExpert = Pick<ServedRequest['asked'][number], 'expert_id' | 'expert_name' | 'sent_at'>;

/**
 * A request as the API sends it. `waiting`, `gives_up_at` and `asked` are optional here so the UI works
 * with a server that does not send them yet: the UI then says nothing about why the request waits.
 */
export type RequestRecord = Omit<ServedRequest, 'waiting' | 'gives_up_at' | 'asked'> & Partial<Pick<ServedRequest, 'waiting' | 'gives_up_at'>> & { asked?: AskedExpert[] };

/** One reviewer's vote on a proposal a review rule covers. */
export type Vote = NonNullable<Proposal['votes']>[number];

/** The answer to an accept or reject: the proposal, and what the decision did and what remains ("Approval recorded: 1 of 2, …"). */
export type DecidedProposal = Proposal & { message?: string };
