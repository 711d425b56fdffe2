import type { ExpertView } from '../service/experts/index.js';
import type { ProposalBody } from '../service/review/index.js';
import type { RequestView } from '../service/requests/index.js';

export type { ProposalBody };

/** Why an open request waits, as the server says it (`waiting` on the request record). */
export interface Waiting {
  why: string;
  expert_id?: string;
  until?: string;
  /** The IANA zone whose clock `until` is read on (absent from an older server). */
  timezone?: string;
}

/**
 * The request record as the CLI reads it. The fields a server of an earlier version does not send
 * are optional and loosely typed: the CLI then prints nothing, or the words it does not know as given.
 */
export type RequestWire = Omit<RequestView, 'proposal' | 'asked' | 'waiting' | 'gives_up_at'> & {
  proposal?: ProposalBody | null;
  asked?: Array<{ expert_id: string; expert_name: string; sent_at: string | null }>;
  waiting?: Waiting | null;
  gives_up_at?: string | null;
};

/** An expert with live state; `available_now` and `unavailable` may be absent on an older server. */
export type ExpertWire = Omit<ExpertView, 'available_now' | 'unavailable' | 'next_available_at' | 'away'> & {
  available_now?: boolean;
  next_available_at?: string | null;
  unavailable?: { why: string; until?: string } | null;
  away?: { until: string; delegate_to: string | null; note: string | null; set_by: string } | null;
};

export const REQUEST_STATUSES = ['queued', 'asked', 'escalated', 'proposed', 'accepted', 'rejected', 'failed'] as const;
export const TERMINAL: ReadonlyArray<string> = ['accepted', 'rejected', 'failed'];
