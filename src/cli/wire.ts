import type { ExpertView } from '../service/experts.js';
import type { ProposalBody, RequestView } from '../service/views.js';

export type { ProposalBody };

/** Why an open request waits, as the server says it (`waiting` on the request record). */
export interface Waiting {
  why: string;
  expert_id?: string;
  until?: string;
}

/**
 * The request record as the CLI reads it. The newer fields are optional: a server that does not send
 * them yet still works, and the CLI then prints nothing about them.
 */
export type RequestWire = RequestView & {
  proposal?: ProposalBody | null;
  asked?: Array<{ expert_id: string; expert_name: string; sent_at: string | null }>;
  waiting?: Waiting | null;
  gives_up_at?: string | null;
};

/** An expert with live state; `available_now` and `unavailable` may be absent on an older server. */
export type ExpertWire = ExpertView & {
  available_now?: boolean;
  unavailable?: { why: string; until?: string } | null;
};

export const REQUEST_STATUSES = ['queued', 'asked', 'escalated', 'proposed', 'accepted', 'rejected', 'failed'] as const;
export const TERMINAL: ReadonlyArray<string> = ['accepted', 'rejected', 'failed'];
