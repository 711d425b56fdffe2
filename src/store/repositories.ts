import type { PruneCounts, RetentionCutoffs } from './retention.js';
import type {
  AskRecord, AskState, AuditEntry, ChatRef, ConsumerRecord, Decision, DeliveryJob, DeliveryRecord, EventRecord,
  LlmJobRecord, MessageRecord, ProposalRecord, RequestRecord,
} from '../domain/records.js';
import type {
  DeliveryClaim, DeliveryOutcome, DeliveryQuery, DueCursor, HeldRequest, MetricCounts, MessageLease, RequestPatch, RequestQuery, RequestSummary, WorkClaim,
} from './store.js';

/** The repository of each aggregate: what may be read (`*Reads`) and, inside a transaction, written. */

/** Requests, their subscribers and audit trail; deduplication and the request-side due work. */
export interface RequestReads {
  get(id: string): Promise<RequestRecord | undefined>;
  /** What the review queue shows of each request of `ids` that exists, by id, in one read. */
  summaries(ids: readonly string[]): Promise<Map<string, RequestSummary>>;
  list(query: RequestQuery): Promise<RequestRecord[]>;
  /** The newest request with this dedup key created at or after `since`. */
  findByDedupKey(dedupKey: string, since: number): Promise<RequestRecord | undefined>;
  /**
   * How many requests this consumer submitted at or after `since` (its daily quota). Inside a
   * transaction the count is the consumer's to act on until commit: a second transaction counting for
   * the same consumer waits for it, so two instances never both take the last request of a quota.
   */
  countSubmittedSince(consumerId: string, since: number): Promise<number>;
  /** Consumers attached to a request (submitter and deduplicated), in the order they came. */
  subscribers(requestId: string): Promise<string[]>;
  /** `subscribers` of each of `requestIds`, in one read (a request with none is absent). */
  subscribersOfMany(requestIds: readonly string[]): Promise<Map<string, string[]>>;
  /** A request's audit trail, oldest first. */
  audit(requestId: string): Promise<AuditEntry[]>;
  /**
   * Open requests without a proposal whose `give_up_at` has passed, by (give_up_at, id) after `after`.
   * Ids only: each is read again in its own transaction.
   */
  dueGiveUps(now: number, after: DueCursor | null, limit: number): Promise<Array<Pick<RequestRecord, 'id' | 'give_up_at'>>>;
  /**
   * Open requests whose `warn_at` has passed (their `request_expiring` is due), by (warn_at, id) after
   * `after`. Ids only: each is read again in its own transaction.
   */
  dueWarnings(now: number, after: DueCursor | null, limit: number): Promise<Array<{ id: string; warn_at: number }>>;
  /** Held requests with no queued or open ask, oldest submission first. */
  held(): Promise<HeldRequest[]>;
}

export interface RequestRepository extends RequestReads {
  /** Stores a new request with its submitter (`consumer_id`) as its first subscriber. */
  insert(request: RequestRecord): Promise<void>;
  update(id: string, patch: RequestPatch): Promise<void>;
  /** Adds a subscriber; false when it was already subscribed. */
  addSubscriber(requestId: string, consumerId: string, via: string, at: number): Promise<boolean>;
  appendAudit(entry: AuditEntry): Promise<void>;
}

export type { AskCaps, AskReads, AskRepository } from './ask-repository.js';

/** Proposals, their decisions and their review cards in a chat channel. */
export interface ProposalReads {
  get(id: string): Promise<ProposalRecord | undefined>;
  /** Pending proposals, oldest first. */
  pending(): Promise<ProposalRecord[]>;
  /** The pending proposal that has waited longest, if any. */
  oldestPending(): Promise<ProposalRecord | undefined>;
  /** Every proposal of a request, oldest first (a sent-back answer and the answer that followed it). */
  listFor(requestId: string): Promise<ProposalRecord[]>;
  /** Every proposal of each of `requestIds`, in one read: by request, each oldest first. */
  listForMany(requestIds: readonly string[]): Promise<Map<string, ProposalRecord[]>>;
  /** The proposals a reviewer sent back on each of `requestIds`, in one read: by request, each oldest first. */
  returnedFor(requestIds: readonly string[]): Promise<Map<string, ProposalRecord[]>>;
  /** Where a proposal's review card was posted. */
  reviewCard(proposalId: string): Promise<ChatRef | undefined>;
}

export interface ProposalRepository extends ProposalReads {
  insert(proposal: ProposalRecord): Promise<void>;
  /** Decides a pending proposal; false (and no change) when it was already decided. */
  decide(id: string, status: 'accepted' | 'rejected', decision: Decision): Promise<boolean>;
  /** A reviewer's edit of a pending proposal's answer (in the transaction that accepts it). */
  revise(id: string, revision: Pick<ProposalRecord, 'answer' | 'structured' | 'original_answer' | 'provenance'>): Promise<void>;
  setReviewCard(proposalId: string, ref: ChatRef): Promise<void>;
  /** Pending proposals with a posted card whose request passed its give-up time, not yet marked; marks them. */
  takeOverdueReviewCards(now: number): Promise<string[]>;
}

/** The transactional outbox: events with their deliveries, and messages to experts; both leased to whoever sends them. */
export interface OutboxReads {
  /** A request's events (bodies still held), oldest first. */
  events(requestId: string): Promise<EventRecord[]>;
  /** The messages about a request still held, whatever their state, oldest first. */
  messages(requestId: string): Promise<MessageRecord[]>;
  /** The six elements of the ask message sent for an ask (null when none was queued). */
  askElements(askId: string): Promise<string[] | null>;
  getDelivery(id: string): Promise<DeliveryRecord | undefined>;
  deliveries(query: DeliveryQuery): Promise<DeliveryRecord[]>;
  /** Whether any pending message is due at `now` (a cheap read before a claim, which writes). */
  anyDueMessage(now: number): Promise<boolean>;
  /** Whether any pending delivery is due at `now` (a cheap read before a claim, which writes). */
  anyDueDelivery(now: number): Promise<boolean>;
}

export interface OutboxRepository extends OutboxReads {
  insertEvent(event: EventRecord): Promise<void>;
  /**
   * Queues a message to an expert. With `lease`, it is written already leased to `lease.owner` (who
   * sends it after the commit, with no claim of its own); should that process die first, the lease runs
   * out and any process's claim takes the message, as with one it claimed.
   */
  enqueueMessage(message: MessageRecord, lease?: MessageLease): Promise<void>;
  /**
   * Leases up to `limit` pending messages due at `now`, oldest first: those nobody holds and those
   * whose lease ran out (the process holding them died).
   */
  claimMessages(claim: WorkClaim): Promise<MessageRecord[]>;
  /** Marks pending messages sent (whoever holds them now: the send happened) and ends their lease. */
  markMessagesSent(ids: readonly string[], at: number): Promise<void>;
  /** A failed send by `owner`: due again at `nextAttemptAt`, or `dead` when null; false (no change) if another process took it over. */
  rescheduleMessage(id: string, owner: string, error: string, nextAttemptAt: number | null): Promise<boolean>;
  /** Marks a pending message `dropped` (it no longer applies), with why. */
  dropMessage(id: string, why: string): Promise<void>;
  insertDelivery(delivery: DeliveryRecord): Promise<void>;
  /**
   * Leases due deliveries: per consumer at most `perConsumer` minus what it already has in flight
   * (`inFlight`), and in-process ones only for consumers in `live`.
   */
  claimDeliveries(claim: DeliveryClaim): Promise<DeliveryJob[]>;
  /** Records an attempt's outcome and ends its lease. */
  finishDelivery(id: string, outcome: DeliveryOutcome): Promise<void>;
  /** Drops pending deliveries to a consumer; returns what was dropped. */
  dropPendingDeliveries(consumerId: string, at: number): Promise<DeliveryRecord[]>;
  /** Makes a delivery due again now (replay), whatever its state. */
  retryDelivery(id: string, now: number): Promise<void>;
  /** Extends `owner`'s leases on these pending rows to `leaseUntil`; rows another process took over are left alone. */
  renewLeases(work: 'message' | 'delivery', ids: readonly string[], owner: string, leaseUntil: number): Promise<number>;
}

export interface ConsumerReads {
  get(id: string): Promise<ConsumerRecord | undefined>;
  /** Every consumer, in the order they registered. */
  list(): Promise<ConsumerRecord[]>;
}

export interface ConsumerRepository extends ConsumerReads {
  upsert(consumer: ConsumerRecord): Promise<void>;
  /** False when there was no such consumer. */
  delete(id: string): Promise<boolean>;
}

/** Where asks were posted in a chat platform, and the chat event ids already processed. */
export interface ChatReads {
  ref(askId: string): Promise<ChatRef | undefined>;
  /** The ask posted as this message, or (a thread reply) the newest ask posted in that thread. */
  askByRef(ref: ChatRef): Promise<AskRecord | undefined>;
  /**
   * For each ask that exists: its state, where it was posted (`ref`), and where the first ask of its
   * expert on its request was posted (`firstRef`: a later ask goes in that thread), in one read.
   */
  askPlaces(askIds: readonly string[]): Promise<Map<string, AskPlace>>;
  /** Whether an event id was recorded as processed (`markEvent`): a single-use link already used, say. */
  eventSeen(id: string): Promise<boolean>;
}

/** Where an ask stands when a message about it is about to go out. */
export interface AskPlace {
  state: AskState;
  ref: ChatRef | null;
  firstRef: ChatRef | null;
}

export interface ChatRepository extends ChatReads {
  setRef(askId: string, ref: ChatRef): Promise<void>;
  /** Records a chat event id as processed; false when it already was (a retry or a redelivery). */
  markEvent(id: string, at: number): Promise<boolean>;
}

/** Drafting and structuring jobs, claimed with a lease like messages and deliveries. */
export interface LlmJobReads {
  get(id: string): Promise<LlmJobRecord | undefined>;
  /** Pending drafts whose deadline has passed, oldest deadline first. */
  expiredDrafts(now: number, limit: number): Promise<LlmJobRecord[]>;
  /** How many pending jobs still wait for a call: those not past their deadline. */
  countWaiting(now: number): Promise<number>;
}

export interface LlmJobRepository extends LlmJobReads {
  insert(job: LlmJobRecord): Promise<void>;
  /**
   * Leases up to `limit` pending jobs to run, oldest first: those nobody holds or whose lease ran out,
   * leaving out `exclude` (the claimant's own in flight) and drafts past their deadline (those fall
   * back without a call); each one's `attempts` is counted up.
   */
  claim(claim: WorkClaim & { exclude: readonly string[] }): Promise<LlmJobRecord[]>;
  /** Gives up `owner`'s lease on a pending job (its call was stopped), so any process runs it at once. */
  release(id: string, owner: string): Promise<void>;
  /** Marks a pending job done and ends its lease; false when it was already done (a late result after a fallback). */
  finish(id: string, at: number): Promise<boolean>;
  renewLeases(ids: readonly string[], owner: string, leaseUntil: number): Promise<number>;
}

/** Small named values the service keeps between runs (when the last review reminder went out). */
export interface ServiceStateReads {
  get(key: string): Promise<string | undefined>;
}

export interface ServiceStateRepository extends ServiceStateReads {
  set(key: string, value: string): Promise<void>;
  /** Stores `value` unless the key has one already; resolves with the value kept (two instances racing agree on one). */
  setIfAbsent(key: string, value: string): Promise<string>;
}

/** A running instance of expertq, as it registered itself and last reported. */
export interface InstanceRecord {
  id: string;
  host: string;
  pid: number;
  version: string;
  started_at: number;
  last_seen: number;
  /** A hash of the expert registry the instance runs (differs when instances read different files). */
  registry_hash: string;
  /**
   * What the instance reads and writes of a shared database, by version (PostgreSQL): 0 for the
   * versions before this column, which cannot say. Missing where there is nothing to share (SQLite).
   */
  generation?: number;
}

export interface InstanceReads {
  /** Every registered instance, the longest running first. */
  list(): Promise<InstanceRecord[]>;
}

export interface InstanceRepository extends InstanceReads {
  /** Registers an instance, or updates it when its id is there already. */
  upsert(instance: InstanceRecord): Promise<void>;
  /** Removes an instance (a clean stop), or those not seen since `before` (their process is gone). */
  remove(id: string): Promise<void>;
  removeUnseenSince(before: number): Promise<number>;
}

export interface RetentionReads {
  /**
   * How long one batch of a prune should take, in ms. On SQLite a batch holds the only writer (and the
   * event loop), so tens of ms at most; on PostgreSQL it holds only the rows it removes, long finished, and its
   * round trips would be most of a batch that short.
   */
  readonly batchMs: number;
  /** What retention would remove at these cutoffs. */
  countPrunable(cutoffs: RetentionCutoffs): Promise<PruneCounts>;
  /**
   * Up to `limit` finished requests last changed before `before` with no work pending, oldest first:
   * the next batch's, picked from the last commit outside its transaction (see `pruneOnce`).
   */
  pickRequests(before: number, limit: number): Promise<string[]>;
}

export interface RetentionRepository extends RetentionReads {
  /**
   * Removes up to `limit` rows of each kind past the cutoffs, and those of the `picked` requests that
   * still may go with all that is theirs (each checked again in this transaction); what went.
   */
  pruneBatch(cutoffs: RetentionCutoffs, limit: number, picked: string[]): Promise<PruneCounts>;
}

export interface MetricReads {
  /** Row counts for `/metrics`: pending outbox rows, dead deliveries, pending proposals. */
  counts(): Promise<MetricCounts>;
  /** Requests kept, by status: a read that grows with every request kept (about 50 ms at a million). */
  requestsByStatus(): Promise<Record<string, number>>;
}
