import type {
  AskRecord, AskState, AuditEntry, Decision, EventRecord, ExpertLiveState, MessageRecord, ProposalRecord,
  RequestRecord, RequestStatus,
} from './records.js';

export interface RequestQuery {
  status?: RequestStatus | undefined;
  consumer_id?: string | undefined;
  limit: number;
  /** Return requests older than this id (the cursor). */
  before?: string | undefined;
}

export type RequestPatch = Partial<Pick<RequestRecord, 'status' | 'reason' | 'proposal_id' | 'held' | 'updated_at'>>;
export type AskPatch = Partial<Pick<AskRecord, 'state' | 'sent_at' | 'escalate_at' | 'closed_at'>>;

/**
 * Everything expertq keeps. Methods are synchronous; `transaction` groups them so that a state change,
 * its audit rows and the events and messages it causes commit together or not at all.
 */
export interface Store {
  transaction<T>(fn: () => T): T;
  close(): void;

  insertRequest(request: RequestRecord): void;
  getRequest(id: string): RequestRecord | undefined;
  updateRequest(id: string, patch: RequestPatch): void;
  listRequests(query: RequestQuery): RequestRecord[];
  /** The newest request with this dedup key created at or after `since`. */
  findByDedupKey(dedupKey: string, since: number): RequestRecord | undefined;
  /** Adds a subscriber; false when it was already subscribed. */
  addSubscriber(requestId: string, consumerId: string, via: string, at: number): boolean;
  listSubscribers(requestId: string): string[];

  insertAsk(ask: AskRecord): void;
  updateAsk(id: string, patch: AskPatch): void;
  listAsks(requestId: string): AskRecord[];
  /** The ask an expert's reply belongs to: on that request, or else the expert's oldest open ask. */
  findAskForReply(expertId: string, requestId: string | null): AskRecord | undefined;
  /** Live state per expert; `ids` null means every expert with any state. Days start at `dayStart`. */
  expertStates(ids: readonly string[] | null, dayStart: number): Map<string, ExpertLiveState>;
  setMuted(expertId: string, muted: boolean, at: number): void;

  insertProposal(proposal: ProposalRecord): void;
  getProposal(id: string): ProposalRecord | undefined;
  /** Decides a pending proposal; false (and no change) when it was already decided. */
  decideProposal(id: string, status: 'accepted' | 'rejected', decision: Decision): boolean;
  listPendingProposals(): ProposalRecord[];

  appendAudit(entry: AuditEntry): void;
  listAudit(requestId: string): AuditEntry[];
  insertEvent(event: EventRecord): void;

  enqueueMessage(message: MessageRecord): void;
  /** Leases up to `limit` due messages until `leaseUntil`; a crashed claim expires and is retried. */
  claimMessages(now: number, leaseUntil: number, limit: number): MessageRecord[];
  markMessagesSent(ids: readonly string[], at: number): void;
  rescheduleMessage(id: string, error: string, nextAttemptAt: number | null): void;
}

export type { AskState };
