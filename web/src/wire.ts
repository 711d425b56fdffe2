import type { RequestRecord as ServedRequest } from '../../src/wire/types.js';

/** The API's wire shapes, inferred from the server's own zod schemas (types only: nothing is bundled). */
export type { Answer, AnswerStats, AuditEntry, ErrorBody, Expert, Me, Page, Proposal, QueueItem, SignInState, Waiting } from '../../src/wire/types.js';

/** An ask that is out now (open, or queued to go out). */
export type AskedExpert = Pick<ServedRequest['asked'][number], 'expert_id' | 'expert_name' | 'sent_at'>;

/**
 * A request as the API sends it. `waiting`, `gives_up_at` and `asked` are optional here so the UI works
 * with a server that does not send them yet: the UI then says nothing about why the request waits.
 */
export type RequestRecord = Omit<ServedRequest, 'waiting' | 'gives_up_at' | 'asked'> & Partial<Pick<ServedRequest, 'waiting' | 'gives_up_at'>> & { asked?: AskedExpert[] };
