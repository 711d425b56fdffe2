import type { ChangeFeed } from './change-feed.js';
import type { AskRecord, DeliveryState, RequestRecord, RequestStatus } from '../domain/records.js';
import type {
  RequestReads, RequestRepository, AskReads, AskRepository, ProposalReads, ProposalRepository, OutboxReads, OutboxRepository, ConsumerReads, ConsumerRepository, ChatReads, ChatRepository, LlmJobReads, LlmJobRepository, ServiceStateReads, ServiceStateRepository, RetentionReads, RetentionRepository, MetricReads, InstanceReads, InstanceRepository, InstanceRecord,
} from './repositories.js';
import type { AnswerReads, AnswerRepository } from './answer-repository.js';
import type { SessionReads, SessionRepository } from './session-repository.js';
import type { VoteReads, VoteRepository } from './vote-repository.js';
import type { InsightReads, InsightRepository } from './insight-repository.js';

export type { SessionRecord, SessionReads, SessionRepository } from './session-repository.js';
export type { VoteRecord, VoteReads, VoteRepository } from './vote-repository.js';
export type { InsightCount, InsightCounts, InsightKey, InsightQuery, InsightReads, InsightRepository, InsightRollup, InsightTime } from './insight-repository.js';
export { INSIGHT_COUNTS } from './insight-repository.js';
export type { AnswerQuery, AnswerPage, AnswerReads, AnswerRepository, AnswerStats, FoundAnswer, ReuseQuery } from './answer-repository.js';
export type {
  RequestReads, RequestRepository, AskReads, AskRepository, ProposalReads, ProposalRepository, OutboxReads, OutboxRepository, ConsumerReads, ConsumerRepository, ChatReads, ChatRepository, LlmJobReads, LlmJobRepository, ServiceStateReads, ServiceStateRepository, RetentionReads, RetentionRepository, MetricReads, InstanceReads, InstanceRepository, InstanceRecord, AskPlace, AskCaps,
} from './repositories.js';

export interface RequestQuery {
  status?: RequestStatus | undefined;
  consumer_id?: string | undefined;
  topic?: string | undefined;
  /** Text search: requests whose question or drafted question has, for each word of this, a word starting with it (`core/search-words.ts`); none when it has no word. */
  text?: string | undefined;
  limit: number;
  /** Return requests older than this id (the cursor). */
  before?: string | undefined;
}

export type RequestPatch = Partial<Pick<RequestRecord, 'status' | 'reason' | 'proposal_id' | 'held' | 'warn_at' | 'updated_at' | 'drafting' | 'asked_question' | 'routing_policy'>>;
export type AskPatch = Partial<Pick<AskRecord, 'state' | 'sent_at' | 'escalate_at' | 'closed_at' | 'send_after' | 'channel'>>;

/**
 * Everything expertq keeps, behind one asynchronous interface with a repository per aggregate. Every
 * engine (SQLite, PostgreSQL) implements it and passes the same contract suite (`test/store/`);
 * nothing outside `store/` knows which engine runs.
 *
 * Reads outside a transaction go through the store's own repositories (`store.requests.get(id)`):
 * each sees what was committed when it ran. Every write goes through `transaction`, whose handle
 * carries the writing repositories: a state change, its audit rows and the events and messages it
 * causes commit together or not at all. A transaction's work must not wait on anything outside the
 * store (a network call, a timer): the engine may hold its writer for it.
 *
 * `transaction` rejects with the driver-neutral errors of `errors.ts` (`StorageUnavailable`,
 * `Conflict`) in place of the engine's own; an error thrown by the work rolls back everything it did
 * and rejects with that error.
 */
export interface Store extends Reads {
  transaction<T>(work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * `transaction`, then `read` of what it committed, as fresh as a read made after the commit (on
   * PostgreSQL it goes out right behind COMMIT, on the same connection, so it costs no round trip of its
   * own). The commit stands whatever the read does: a read that fails gives `read: undefined`.
   */
  transactionThenRead<T, R>(
    work: (tx: Tx) => Promise<T>,
    read: (reads: Reads, value: T) => Promise<R>,
    options?: TransactionOptions,
  ): Promise<{ value: T; read: R | undefined }>;
  /**
   * Where commits are announced to live views: every process using this database hears of every
   * commit (SQLite: this process only, as it is the only one).
   */
  readonly changes: ChangeFeed;
  /**
   * `/readyz`: rejects, saying why, when the database cannot take writes: the write lock is not to be
   * had, the last write failed for want of storage, or less than `minFreeBytes` (16 MiB) is free.
   */
  checkWritable(minFreeBytes?: number): Promise<void>;
  /**
   * Finishes the upkeep the engine does in the background after commits (SQLite indexes new requests
   * for text search about once a second, and after an upgrade lists the words of the library entries
   * kept from before); no read waits for it, and none answers differently after it.
   */
  settle(): Promise<void>;
  /**
   * The instances serving from this database now (their rows, refreshed within the last 30 s). An
   * engine that several instances share keeps writing what an older one among them still reads
   * (`generation`); the others ignore it.
   */
  noteInstances(live: readonly InstanceRecord[]): void;
  /**
   * Keeps the insight rollups' day and week rows in the organisation's time zone: rebuilt from the hour
   * rows when they were kept in another one, or never (a new or upgraded database); `onRebuild` hears how
   * many hour rows it is about to read first, and about how long that takes on this engine (ms).
   * Resolves with whether it rebuilt them.
   */
  keepInsightsIn(zone: string, onRebuild?: (hourRows: number, estimatedMs: number) => void): Promise<boolean>;
  /**
   * Adds the counts transactions appended to the insight rollups' journal to the rollup rows. The store
   * does so by itself about every half minute and as it closes; a read of insights does it first, so it
   * counts everything committed before it.
   */
  foldInsights(): Promise<void>;
  close(): Promise<void>;
}

/** How a transaction may run; an engine honours what it has a use for and ignores the rest. */
export interface TransactionOptions {
  /**
   * Routing in this transaction may weigh experts on a state this instance read a moment ago instead of
   * locking every candidate. PostgreSQL (several instances write) locks only the experts given asks, and
   * checks with the commit that each still has room within the caps their asks were sent under
   * (`AskRepository.placedUnder`) and is neither muted nor away; when one has not, the transaction is
   * run again from the start, weighing those experts as they are. SQLite ignores it: one process
   * writes, so every state it reads is exact.
   */
  optimisticRouting?: boolean;
}

/** A transaction: the repositories it writes through (each also reads, inside the transaction). */
export interface Tx extends Repositories {
  /**
   * Runs `work` in a savepoint of this transaction: if it throws, what it wrote is rolled back and the
   * error rethrown, and the transaction goes on (one bad row need not undo a batch).
   */
  savepoint<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

/** The repositories of one engine, over one connection. */
export interface Repositories {
  readonly requests: RequestRepository;
  readonly asks: AskRepository;
  readonly proposals: ProposalRepository;
  readonly outbox: OutboxRepository;
  readonly consumers: ConsumerRepository;
  readonly chat: ChatRepository;
  readonly llmJobs: LlmJobRepository;
  readonly serviceState: ServiceStateRepository;
  readonly retention: RetentionRepository;
  readonly metrics: MetricReads;
  readonly instances: InstanceRepository;
  readonly sessions: SessionRepository;
  readonly answers: AnswerRepository;
  readonly votes: VoteRepository;
  readonly insights: InsightRepository;
}

/** What may be read outside a transaction. A `Tx` is also a `Reads`. */
export interface Reads {
  readonly requests: RequestReads;
  readonly asks: AskReads;
  readonly proposals: ProposalReads;
  readonly outbox: OutboxReads;
  readonly consumers: ConsumerReads;
  readonly chat: ChatReads;
  readonly llmJobs: LlmJobReads;
  readonly serviceState: ServiceStateReads;
  readonly retention: RetentionReads;
  readonly metrics: MetricReads;
  readonly instances: InstanceReads;
  readonly sessions: SessionReads;
  readonly answers: AnswerReads;
  readonly votes: VoteReads;
  readonly insights: InsightReads;
}

/** The counts of rows waiting for something: each read on an index of the waiting rows only. */
export interface MetricCounts {
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

/**
 * What the review queue shows of a request: its own fields, and the context's `asked_because` when it
 * is a string. Read without the rest of the row (routing policy, context, search words), which a queue
 * of many proposals would otherwise read and decode for nothing.
 */
export interface RequestSummary {
  id: string;
  consumer_id: string;
  kind: string;
  topic: string;
  question: string;
  asked_question: string | null;
  drafting: boolean;
  asked_because: string | null;
  status: RequestStatus;
  created_at: number;
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

/** A lease written with new work: `owner` holds it until `leaseUntil`. */
export interface MessageLease {
  owner: string;
  leaseUntil: number;
}

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
