import type { PruneCounts, RetentionCutoffs } from './prune.js';
import type {
  AskRecord, AskState, AuditEntry, ChatRef, ConsumerRecord, Decision, DeliveryJob, DeliveryRecord, DeliveryState, EventRecord,
  ExpertLiveState, LlmJobRecord, MessageRecord, ProposalRecord, RequestRecord, RequestStatus,
} from '../domain/records.js';

export interface RequestQuery {
  status?: RequestStatus | undefined;
  consumer_id?: string | undefined;
  topic?: string | undefined;
  /** Text search: requests whose question (or drafted question) contains this, ignoring ASCII case. */
  text?: string | undefined;
  limit: number;
  /** Return requests older than this id (the cursor). */
  before?: string | undefined;
}

export type RequestPatch = Partial<Pick<RequestRecord, 'status' | 'reason' | 'proposal_id' | 'held' | 'updated_at' | 'drafting' | 'asked_question' | 'routing_policy'>>;
export type AskPatch = Partial<Pick<AskRecord, 'state' | 'sent_at' | 'escalate_at' | 'closed_at' | 'send_after'>>;

/**
 * Everything expertq keeps. Methods are synchronous; `transaction` groups them so that a state change,
 * its audit rows and the events and messages it causes commit together or not at all.
 *
 * `transaction` and `commit` throw the driver-neutral errors of `errors.ts` (`StorageUnavailable`,
 * `Conflict`) in place of the engine's own, so a write whose failure someone acts on goes through one
 * of them. (Methods called alone are not wrapped: a wrapper around every call made the scheduler's
 * escalations about 14% slower in `npm run bench`.)
 */
export interface Store {
  transaction<T>(fn: () => T): T;
  /** Like `transaction`, but shares one COMMIT with the other commits of the same event-loop turn. */
  commit<T>(fn: () => T): Promise<T>;
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
  /** The pending proposal that has waited longest, if any (one row of an index). */
  oldestPendingProposal(): ProposalRecord | undefined;
  /** Every proposal of a request, oldest first (a sent-back answer and the answer that followed it). */
  listProposals(requestId: string): ProposalRecord[];
  /** A reviewer's edit of a pending proposal's answer (in the transaction that accepts it). */
  reviseProposal(id: string, revision: Pick<ProposalRecord, 'answer' | 'structured' | 'original_answer' | 'provenance'>): void;

  appendAudit(entry: AuditEntry): void;
  listAudit(requestId: string): AuditEntry[];
  insertEvent(event: EventRecord): void;
  /** A request's events (bodies still held), oldest first. */
  listEvents(requestId: string): EventRecord[];

  /** What retention would remove at these cutoffs. */
  countPrunable(cutoffs: RetentionCutoffs): PruneCounts;
  /** Removes up to `limit` rows of each kind past the cutoffs, in one transaction; what went. */
  pruneBatch(cutoffs: RetentionCutoffs, limit: number): PruneCounts;

  enqueueMessage(message: MessageRecord): void;
  /** The messages about a request still held, whatever their state, oldest first. */
  listMessages(requestId: string): MessageRecord[];
  /**
   * Leases up to `limit` pending messages due at `now`, oldest first, in one UPDATE … RETURNING: those
   * nobody holds and those whose lease ran out (the process holding them died).
   */
  claimMessages(claim: WorkClaim): MessageRecord[];
  /** Marks pending messages sent (whoever holds them now: the send happened) and ends their lease. */
  markMessagesSent(ids: readonly string[], at: number): void;
  /** A failed send by `owner`: due again at `nextAttemptAt`, or `dead` when null; false (no change) if another process took it over. */
  rescheduleMessage(id: string, owner: string, error: string, nextAttemptAt: number | null): boolean;
  /** Marks a pending message `dropped` (it no longer applies), with why. */
  dropMessage(id: string, why: string): void;
  /** Extends `owner`'s leases on these pending rows to `leaseUntil`; rows another process took over are left alone. */
  renewLeases(work: LeasedWork, ids: readonly string[], owner: string, leaseUntil: number): number;

  // Chat transport.
  getAsk(id: string): AskRecord | undefined;
  /** An expert's open asks, oldest sent first. */
  openAsksOf(expertId: string): AskRecord[];
  /** The six elements of the ask message sent for an ask (null when none was queued). */
  askElements(askId: string): string[] | null;
  setChatRef(askId: string, ref: ChatRef): void;
  chatRef(askId: string): ChatRef | undefined;
  /** The ask posted as this message, or (a thread reply) the newest ask posted in that thread. */
  askByChatRef(ref: ChatRef): AskRecord | undefined;
  /** Where the first ask of this expert on this request was posted: a later ask goes in its thread. */
  firstChatRef(requestId: string, expertId: string): ChatRef | undefined;
  /** Records a chat event id as processed; false when it already was (a retry or a redelivery). */
  markChatEvent(id: string, at: number): boolean;
  /** Where a proposal's review card was posted. */
  setReviewCard(proposalId: string, ref: ChatRef): void;
  reviewCard(proposalId: string): ChatRef | undefined;
  /** Pending proposals with a posted card whose request passed its give-up time, not yet marked; marks them. */
  takeOverdueReviewCards(now: number): string[];
  getState(key: string): string | undefined;
  /** Row counts for `/metrics`: requests by status, pending outbox rows, dead deliveries, pending proposals. */
  metricCounts(): MetricCounts;
  /**
   * `/readyz`: throws, saying why, when the database cannot take writes: the write lock is not to be
   * had, the last write failed for want of storage, or less than `minFreeBytes` (16 MiB) is free.
   */
  checkWritable(minFreeBytes?: number): void;
  setState(key: string, value: string): void;

  // Scheduler (issue 4): due work found by absolute timestamps, each query a range on an index.
  /**
   * Open requests without a proposal whose `give_up_at` has passed, by (give_up_at, id) after `after`.
   * Ids only: each is read in its own savepoint, so one unreadable row cannot stop the rest.
   */
  dueGiveUps(now: number, after: DueCursor | null, limit: number): Array<Pick<RequestRecord, 'id' | 'give_up_at'>>;
  /** Open asks whose `escalate_at` has passed, by (escalate_at, id) after `after`. */
  dueEscalations(now: number, after: DueCursor | null, limit: number): AskRecord[];
  /** Queued asks whose quiet hours have ended (`send_after <= now`). */
  dueQueuedAsks(now: number): WaitingAsk[];
  /** Queued asks of these experts, or of every expert when `expertIds` is null. */
  queuedAsks(expertIds: readonly string[] | null): WaitingAsk[];
  /** Held requests with no queued or open ask, oldest submission first. */
  heldRequests(): HeldRequest[];
  /** Whether an expert is muted (one row by key: cheaper than `expertStates` when only this matters). */
  isMuted(expertId: string): boolean;

  // Consumers and deliveries (webhook and in-process outbox).
  upsertConsumer(consumer: ConsumerRecord): void;
  getConsumer(id: string): ConsumerRecord | undefined;
  listConsumers(): ConsumerRecord[];
  deleteConsumer(id: string): boolean;
  insertDelivery(delivery: DeliveryRecord): void;
  getDelivery(id: string): DeliveryRecord | undefined;
  listDeliveries(query: DeliveryQuery): DeliveryRecord[];
  /**
   * Leases due deliveries in one UPDATE … RETURNING: per consumer at most `perConsumer` minus what it
   * already has in flight (`inFlight`), and in-process ones only for consumers in `live`.
   */
  claimDeliveries(claim: DeliveryClaim): DeliveryJob[];
  /** Records attempt outcomes; `next_attempt_at` null with state pending is not allowed. */
  finishDelivery(id: string, outcome: DeliveryOutcome): void;
  /** Drops pending deliveries to a consumer; returns what was dropped. */
  dropPendingDeliveries(consumerId: string, at: number): DeliveryRecord[];
  /** Makes a delivery due again now (replay), whatever its state. */
  retryDelivery(id: string, now: number): void;

  // LLM jobs, claimed with a lease like messages and deliveries.
  insertLlmJob(job: LlmJobRecord): void;
  getLlmJob(id: string): LlmJobRecord | undefined;
  /**
   * Leases up to `limit` pending jobs to run, oldest first: those nobody holds or whose lease ran out,
   * leaving out `exclude` (the claimant's own in flight) and drafts past their deadline (those fall
   * back without a call); each one's `attempts` is counted up.
   */
  claimLlmJobs(claim: WorkClaim & { exclude: readonly string[] }): LlmJobRecord[];
  /** Gives up `owner`'s lease on a pending job (its call was stopped), so any process runs it at once. */
  releaseLlmJob(id: string, owner: string): void;
  /** Pending drafts whose deadline has passed, oldest deadline first. */
  expiredDrafts(now: number, limit: number): LlmJobRecord[];
  /** Marks a pending job done and ends its lease; false when it was already done (a late result after a fallback). */
  finishLlmJob(id: string, at: number): boolean;
}

export interface MetricCounts {
  requestsByStatus: Record<string, number>;
  pendingMessages: number;
  oldestPendingMessageAt: number | null;
  pendingDeliveries: number;
  oldestPendingDeliveryAt: number | null;
  deadDeliveries: number;
  pendingProposals: number;
}

/** Keyset position in a due-work scan: the last row's deadline and id. */
export interface DueCursor {
  at: number;
  id: string;
}

/** A queued ask with its request's submission time, which orders waiting work. */
export interface WaitingAsk extends AskRecord {
  request_created_at: number;
}

/** What the scheduler needs to decide whether a held request is worth re-routing. */
export interface HeldRequest {
  id: string;
  topic: string;
  target_experts: string[] | null;
  created_at: number;
}

export interface DeliveryQuery {
  consumer_id?: string | undefined;
  state?: DeliveryState | undefined;
  limit: number;
  before?: string | undefined;
}

/** Outside work held under a lease. */
export type LeasedWork = 'message' | 'delivery' | 'llm_job';

/** A claim on due work: leased to `owner` until `leaseUntil`. */
export interface WorkClaim {
  now: number;
  owner: string;
  leaseUntil: number;
  limit: number;
}

export interface DeliveryClaim {
  now: number;
  owner: string;
  leaseUntil: number;
  limit: number;
  perConsumer: number;
  inFlight: Readonly<Record<string, number>>;
  live: readonly string[];
}

export interface DeliveryOutcome {
  state: DeliveryState;
  at: number;
  status: number | null;
  error: string | null;
  nextAttemptAt?: number;
}

export type { AskState };
