import type { z } from 'zod';
import type { answerStatsView, answerView } from '../../src/wire/answer-schemas.js';
import type { auditEntry, errorBody, expertView, proposal, queueItem, requestRecord } from '../../src/wire/schemas.js';

/** The API's wire shapes, inferred from the server's own zod schemas (types only: nothing is bundled). */
export type Proposal = z.infer<typeof proposal>;
export type QueueItem = z.infer<typeof queueItem>;
/** Why an open request waits, and for whom and until when when known. */
export interface Waiting {
  why: 'llm' | 'quiet_hours' | 'working_hours' | 'away' | 'dnd' | 'cap' | 'review';
  expert_id?: string;
  until?: string;
  /** The IANA zone whose clock `until` is read on (absent from an older server). */
  timezone?: string;
}

/** An ask that is out now (open, or queued to go out). */
export interface AskedExpert {
  expert_id: string;
  expert_name: string;
  sent_at: string | null;
}

/**
 * A request as the API sends it. `waiting`, `gives_up_at` and `asked` are optional here so the UI works
 * with a server that does not send them yet: the UI then says nothing about why the request waits.
 */
export type RequestRecord = z.infer<typeof requestRecord> & {
  waiting?: Waiting | null;
  gives_up_at?: string | null;
  asked?: AskedExpert[];
};
export type AuditEntry = z.infer<typeof auditEntry>;
export type Expert = z.infer<typeof expertView>;
export type ErrorBody = z.infer<typeof errorBody>;
export type Answer = z.infer<typeof answerView>;
export type AnswerStats = z.infer<typeof answerStatsView>;
