import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import type { ExpertEntry } from '../config/expert-schema.js';
import { librarySchema } from '../config/config-schema.js';
import { ExpertRegistry } from '../core/expert-registry.js';
import type { ConsumerHandlers, DeliveryDispatcher } from '../delivery/delivery-dispatcher.js';
import type { MessageDispatcher } from '../delivery/message-dispatcher.js';
import { AppError, notFound } from '../errors.js';
import type { LlmSettings } from '../llm/create-llm-client.js';
import { expireLlmJobs } from './expire-llm-jobs.js';
import type { LlmWorker } from './llm-worker.js';
import type { ProposalRecord, RequestRecord } from '../domain/records.js';
import type { RequestQuery, Store } from '../store/store.js';
import type { InboundOutcome, InboundReply, ReviewAction, ReviewOutcome, Transport } from '../transport/transport.js';
import { cancelRequest } from './cancel-request.js';
import {
  consumerView, deleteConsumer, deliveryView, listDeliveries, listKinds, registerConsumer, retryDelivery, type ConsumerInput,
  type DeliveryListQuery,
} from './consumers.js';
import { decideProposal, type DecisionInput } from './decide-proposal.js';
import type { Engine, ReviewSettings, ServiceCounters } from './engine.js';
import { listInstances } from './instances.js';
import { startWorkers } from './workers.js';
import { reviewFromChat } from './review-from-chat.js';
import { endAway, setAway, type AwayInput } from './expert-away.js';
import { listExperts, muteExpert, replaceExperts, unmuteExpert, type ExpertView } from './experts.js';
import { receiveInbound } from './receive-inbound.js';
import { returnProposal, type ReturnInput } from './return-proposal.js';
import { receiveReply, type ReplyInput, type ReplyResult } from './receive-reply.js';
import type { SubmitInput, SubmitResult } from './submit-request.js';
import { submitAll, SubmitBatcher, workMadeBy } from './submit-batch.js';
import type { TickResult, TimedWork } from './timed-work.js';
import { queueView, type QueueItem } from './queue-view.js';
import { listTopics, type TopicView } from './topics.js';
import { waitForDecision } from './wait-for-decision.js';
import type { ChangeFeed } from '../store/change-feed.js';
import { newClaimantId } from '../store/lease-keeper.js';
import { auditTrail, expertAuditTrail, listRequests, requestView, type RequestView } from './views.js';
import type { ExpertqServiceOptions } from './service-options.js';

export type { ExpertqServiceOptions };


/**
 * The operations of expertq behind one object: HTTP routes, the scheduler and the SDK call these.
 * Each operation commits its state change, audit rows, events and messages in one transaction (shared
 * with the other operations of the same event-loop turn: group commit) and then wakes the
 * dispatchers, which deliver what was committed.
 */
export class ExpertqService implements Engine {
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: Engine['config'];
  readonly transportName: string;
  readonly threadedTransport: boolean;
  readonly review: ReviewSettings;
  readonly counters: ServiceCounters = { reviewReminders: 0, rateLimitedSubmits: 0, transportFailures: new Map(), llmFailures: new Map(), reuse: new Map() };
  /** Wall-clock time of the last scheduler tick (`/readyz`); null before the first. */
  lastTickAt: number | null = null;
  readonly transport: Transport;
  readonly messages: MessageDispatcher;
  readonly deliveries: DeliveryDispatcher;
  readonly allowPrivateWebhooks: boolean;
  readonly scheduler: TimedWork;
  readonly llm: LlmSettings | null;
  /** Runs drafting and structuring jobs; null without an LLM. */
  readonly llmWorker: LlmWorker | null;
  experts: ExpertRegistry;
  /** Told after every operation commits, so live views (long polls, the queue stream) update at once. */
  readonly changes: ChangeFeed;
  /** This process's name on the leases it holds: one per process, shared by its dispatchers and LLM worker. */
  readonly instanceId: string;
  /** Emits `tick` with each scheduler tick's duration in seconds (the tick-duration histogram). */
  readonly ticks = new EventEmitter();
  private readonly stopping = new AbortController();
  private readonly submits = new SubmitBatcher(async (inputs) => {
    const results = await this.store.transaction((tx) => submitAll(this, tx, inputs));
    const wake = workMadeBy(results);
    if (wake.messages) this.onMessagesQueued();
    if (wake.messages) this.llmWorker?.kick();
    if (wake.events) this.onEventsQueued();
    this.changes.publish();
    return results;
  });

  constructor(options: ExpertqServiceOptions) {
    this.store = options.store;
    this.changes = options.changes ?? options.store.changes;
    this.clock = options.clock ?? systemClock;
    this.log = options.log;
    this.config = {
      org: options.config.org,
      defaults: options.config.defaults,
      topics: options.config.topics,
      library: options.config.library ?? librarySchema.parse({}),
      file: options.config.file ?? null,
    };
    this.experts = new ExpertRegistry(options.config.experts);
    this.transportName = options.transport.name;
    this.threadedTransport = options.transport.threaded;
    this.transport = options.transport;
    this.review = {
      // A review channel needs a transport that can post to one.
      channel: options.transport.threaded ? (options.review?.channel ?? null) : null,
      reviewers: options.review?.reviewers ?? [],
      remindAfterMs: options.review?.remindAfterMs ?? 3_600_000,
    };
    this.instanceId = options.instanceId ?? newClaimantId();
    this.allowPrivateWebhooks = options.allowPrivateWebhooks ?? false;
    ({ messages: this.messages, deliveries: this.deliveries, llmWorker: this.llmWorker } = startWorkers(this, options));
    this.scheduler = options.scheduler(this);
    this.llm = options.llm?.settings ?? null;
  }

  onMessagesQueued(): void {
    this.messages.kick();
  }

  onEventsQueued(): void {
    this.deliveries.kick();
  }

  private committed<T>(result: T): T {
    this.onMessagesQueued();
    this.onEventsQueued();
    this.changes.publish();
    this.llmWorker?.kick();
    return result;
  }

  async submitRequest(input: SubmitInput): Promise<SubmitResult> {
    const { reused, ...result } = await this.submits.submit(input).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'rate_limited') {
        this.counters.rateLimitedSubmits++;
        this.log.info({ consumer_id: input.consumer_id }, 'submit refused: the consumer reached its daily quota');
      }
      throw error;
    });
    this.log.info({ request_id: result.request_id, status: result.status, consumer_id: input.consumer_id, reused }, 'request submitted');
    return result;
  }

  async getRequest(id: string): Promise<RequestView> {
    const request = await this.store.requests.get(id);
    if (!request) throw notFound('Request', id);
    return requestView(this, request);
  }

  /**
   * Resolves with the request once it is accepted, rejected or failed, or at `timeoutMs` (or when
   * `signal` aborts, or at shutdown) with its state then. Unknown id: throws 404 at once.
   */
  waitForDecision(id: string, timeoutMs: number, signal?: AbortSignal, changedFrom?: string): Promise<RequestView> {
    return waitForDecision(this, id, timeoutMs, [signal, this.stopping.signal], changedFrom);
  }

  /** Aborted by `shutdown()`: long polls and live streams listen to it and end with the state they have. */
  get stoppingSignal(): AbortSignal {
    return this.stopping.signal;
  }

  /** Whether `shutdown()` was called: new HTTP requests are then answered 503. */
  get shuttingDown(): boolean {
    return this.stopping.signal.aborted;
  }

  /**
   * The first step of a graceful stop: every wait for a decision resolves at once with the request as
   * it is, and live streams end, so closing the HTTP server does not wait for them. Idempotent.
   */
  shutdown(): void {
    this.stopping.abort();
  }

  listRequests(query: RequestQuery): Promise<{ items: RequestView[]; next_cursor: string | null }> {
    return listRequests(this, query);
  }

  async cancelRequest(id: string, by = 'api'): Promise<RequestView> {
    const request: RequestRecord = await this.store.transaction((tx) => cancelRequest(this, tx, id, by));
    this.log.info({ request_id: id }, 'request cancel');
    return this.committed(await requestView(this, request));
  }

  async receiveReply(input: ReplyInput): Promise<ReplyResult> {
    const result = await this.store.transaction((tx) => receiveReply(this, tx, input));
    this.log.info({ expert_id: input.expert_id, request_id: result.request_id, outcome: result.outcome, proposal_id: result.proposal_id }, 'reply received');
    return this.committed(result);
  }

  /** A message, button or modal from a chat platform; committed (once per event id) before it resolves. */
  async receiveInbound(input: InboundReply): Promise<InboundOutcome> {
    const result = await this.store.transaction((tx) => receiveInbound(this, tx, input));
    this.log.info({ expert_id: input.expertId, request_id: result.request_id, outcome: result.outcome, event_id: input.eventId }, 'chat reply received');
    return this.committed(result);
  }

  /** A decision from the chat platform's review channel; committed (once per event id) before it resolves. */
  async reviewFromChat(action: ReviewAction): Promise<ReviewOutcome> {
    const result = await this.store.transaction((tx) => reviewFromChat(this, tx, action));
    this.log.info({ proposal_id: action.proposalId, user: action.userId, action: action.action, outcome: result.outcome }, 'review from chat');
    return this.committed(result);
  }

  listPendingProposals(): Promise<ProposalRecord[]> {
    return this.store.proposals.pending();
  }

  /** The reviewer's queue: pending proposals with their requests and returned answers, oldest first. */
  queue(): Promise<QueueItem[]> {
    return queueView(this);
  }

  async getProposal(id: string): Promise<ProposalRecord> {
    const proposal = await this.store.proposals.get(id);
    if (!proposal) throw notFound('Proposal', id);
    return proposal;
  }

  async decide(id: string, status: 'accepted' | 'rejected', input: DecisionInput): Promise<ProposalRecord> {
    const proposal = await this.store.transaction((tx) => decideProposal(this, tx, id, status, input));
    this.log.info({ proposal_id: id, request_id: proposal.request_id, status: proposal.status, decided_by: input.decided_by }, 'proposal decision');
    return this.committed(proposal);
  }

  /** Sends a pending proposal back to its expert with instructions. */
  async returnProposal(id: string, input: ReturnInput): Promise<ProposalRecord> {
    const proposal = await this.store.transaction((tx) => returnProposal(this, tx, id, input));
    this.log.info({ proposal_id: id, request_id: proposal.request_id, decided_by: input.decided_by }, 'proposal sent back to the expert');
    return this.committed(proposal);
  }

  listExperts(): Promise<ExpertView[]> {
    return listExperts(this);
  }

  /** The instances serving from this database, with warnings when they disagree (admin). */
  listInstances() {
    return listInstances(this);
  }

  listTopics(): Promise<TopicView[]> {
    return listTopics(this, this.clock.now());
  }

  replaceExperts(entries: ExpertEntry[]): Promise<ExpertView[]> {
    return replaceExperts(this, entries);
  }

  async muteExpert(id: string, mutedBy: string): Promise<ExpertView> {
    return this.committed(await muteExpert(this, id, mutedBy));
  }

  async unmuteExpert(id: string): Promise<ExpertView> {
    return this.committed(await unmuteExpert(this, id));
  }

  /** Sets an expert away until a time, with an optional delegate; their waiting questions pass on at once. */
  async setAway(id: string, input: AwayInput, by: string): Promise<ExpertView> {
    await setAway(this, id, input, by);
    return this.committed((await listExperts(this)).find((e) => e.id === id)!);
  }

  /** Ends an expert's away spell now; nothing happens when they are not away. */
  async endAway(id: string, by: string): Promise<ExpertView> {
    await endAway(this, id, by);
    return this.committed((await listExperts(this)).find((e) => e.id === id)!);
  }

  audit(requestId: string) {
    return auditTrail(this, requestId);
  }

  /** An expert's own audit trail (away, back). */
  expertAudit(expertId: string) {
    return expertAuditTrail(this, expertId);
  }

  /** Registers a webhook consumer (HTTP) or, with `handlers`, an in-process one (SDK). */
  async registerConsumer(input: ConsumerInput, handlers?: ConsumerHandlers): Promise<{ id: string; signing_secret: string | null }> {
    const result = await registerConsumer(this, input, this.allowPrivateWebhooks);
    this.deliveries.setHandlers(input.id, input.delivery.type === 'in_process' ? (handlers ?? {}) : null);
    return this.committed(result);
  }

  async listConsumers() {
    return (await this.store.consumers.list()).map(consumerView);
  }

  async deleteConsumer(id: string): Promise<void> {
    await deleteConsumer(this, id);
    this.deliveries.setHandlers(id, null);
  }

  listKinds() {
    return listKinds(this);
  }

  listDeliveries(query: DeliveryListQuery) {
    return listDeliveries(this, query);
  }

  async retryDelivery(id: string) {
    const delivery = await retryDelivery(this, id);
    this.log.info({ delivery_id: id, consumer_id: delivery.consumer_id }, 'delivery replay requested');
    return this.committed(deliveryView(delivery));
  }

  /** Wakes both dispatchers and the LLM worker: due work is picked up (the server calls this every tick). */
  kick(): void {
    this.onMessagesQueued();
    this.onEventsQueued();
    this.llmWorker?.kick();
  }

  /**
   * Acts on everything due at the clock's now (give-ups, escalations, quiet hours ending, held and
   * queued work), then wakes both dispatchers. The server calls it every `server.tick_ms`; tests move a
   * fake clock and call it.
   */
  async tick(): Promise<TickResult> {
    const now = this.clock.now();
    const started = performance.now();
    this.lastTickAt = Date.now();
    // LLM work past its deadline falls back first, so the asks it held go out in this same tick.
    if (this.llm) await expireLlmJobs(this, now);
    const result = await this.scheduler.tick(now);
    this.ticks.emit('tick', (performance.now() - started) / 1000);
    return this.committed(result);
  }

  /**
   * Waits for LLM jobs, then messages and deliveries in flight (tests, shutdown). LLM jobs first: a
   * finished draft queues asks, a finished structuring queues events.
   */
  async idle(): Promise<void> {
    await this.llmWorker?.idle();
    await Promise.all([this.messages.idle(), this.deliveries.idle()]);
  }
}
