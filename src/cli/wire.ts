import type { Expert, Proposal, RequestRecord, Waiting as ServedWaiting } from '../wire/types.js';

/** The wire shapes as the CLI reads them: the API's types (src/wire), loosened where an older server differs. */

export type ProposalBody = Proposal;

/** Why an open request waits, as the server says it (`waiting` on the request record); a reason the CLI does not know is printed as given. */
export type Waiting = Omit<ServedWaiting, 'why'> & { why: string };

/**
 * The request record as the CLI reads it. The fields a server of an earlier version does not send
 * are optional and loosely typed: the CLI then prints nothing, or the words it does not know as given.
 */
export type RequestWire = Omit<RequestRecord, 'proposal' | 'asked' | 'waiting' | 'gives_up_at'> & {
  proposal?: ProposalBody | null;
  asked?: Array<Pick<RequestRecord['asked'][number], 'expert_id' | 'expert_name' | 'sent_at'>>;
  waiting?: Waiting | null;
  gives_up_at?: string | null;
};

/** An expert with live state; `available_now` and `unavailable` may be absent on an older server. */
export type ExpertWire = Omit<Expert, 'available_now' | 'unavailable' | 'next_available_at' | 'away'> & {
  available_now?: boolean;
  next_available_at?: string | null;
  unavailable?: { why: string; until?: string } | null;
  away?: Pick<NonNullable<Expert['away']>, 'until' | 'delegate_to' | 'note' | 'set_by'> | null;
};

export const REQUEST_STATUSES = ['queued', 'asked', 'escalated', 'proposed', 'accepted', 'rejected', 'failed'] as const;
export const TERMINAL: ReadonlyArray<string> = ['accepted', 'rejected', 'failed'];
