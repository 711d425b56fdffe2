import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import { librarySchema } from '../config/config-schema.js';
import { ExpertRegistry } from '../core/expert-registry.js';
import type { ChannelPlan } from '../core/check-channels.js';
import { warnAboutChannels } from './experts/index.js';
import type { DeliveryDispatcher } from '../delivery/delivery-dispatcher.js';
import type { MessageDispatcher } from '../delivery/message-dispatcher.js';
import type { LlmSettings } from '../llm/create-llm-client.js';
import { expireLlmJobs, type LlmWorker } from './llm/index.js';
import type { Store } from '../store/store.js';
import type { Transport } from '../transport/transport.js';
import { runningChannels } from '../transport/channel-set.js';
import { type Engine, type ReviewSettings, type ServiceCounters, libraryTopics, quotaConsumers, type KnownKeys, LlmBacklog, PresenceCache } from './engine/index.js';
import { placeWaiting } from './routing/index.js';
import { DueWorkState, runDueWork, type TickResult } from './operations/index.js';
import type { ChangeFeed } from '../store/change-feed.js';
import { newClaimantId } from '../store/lease-keeper.js';
import type { ExpertqServiceOptions } from './service-options.js';

/** The workers the composition root builds for a service, which it wakes after each commit. */
export interface ServiceWorkers {
  messages: MessageDispatcher;
  deliveries: DeliveryDispatcher;
  /** null without an LLM. */
  llmWorker: LlmWorker | null;
}

/**
 * What every operation of `ExpertqService` works with: the store, the clock, the registry and
 * configuration, the dispatchers and workers woken after each commit, and the tick that does due work. The
 * operations themselves are in `ExpertqService`.
 */
export class ServiceBase implements Engine {
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: Engine['config'];
  readonly channels: ChannelPlan;
  readonly transportName: string;
  readonly threadedTransport: boolean;
  readonly review: ReviewSettings;
  readonly counters: ServiceCounters = { reviewReminders: 0, rateLimitedSubmits: 0, transportFailures: new Map(), llmFailures: new Map(), reuse: new Map(), refusedInbound: new Map(), reviewVotes: new Map(), decisionTimes: [] };
  /** Wall-clock time of the last scheduler tick (`/readyz`); null before the first. */
  lastTickAt: number | null = null;
  readonly transport: Transport;
  readonly allowPrivateWebhooks: boolean;
  private workers: ServiceWorkers | null = null;
  readonly llm: LlmSettings | null;
  readonly llmBacklog: LlmBacklog | null;
  readonly libraryTopics: KnownKeys = libraryTopics(() => this.store);
  readonly quotaConsumers: KnownKeys = quotaConsumers(() => this.store);
  readonly presence: PresenceCache | null;
  experts: ExpertRegistry;
  /** Told after every operation commits, so live views (long polls, the queue stream) update at once. */
  readonly changes: ChangeFeed;
  /** This process's name on the leases it holds: one per process, shared by its dispatchers and LLM worker. */
  readonly instanceId: string;
  /** Emits `tick` with each scheduler tick's duration in seconds (the tick-duration histogram). */
  readonly ticks = new EventEmitter();
  protected readonly stopping = new AbortController();
  /** What the due work of `tick()` remembers between ticks. */
  private readonly dueWork: DueWorkState;

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
    const running = runningChannels(options.transport);
    this.channels = options.channels ?? { configured: new Set(running.filter((c) => c !== 'console')), running: new Set(running) };
    this.experts = new ExpertRegistry(options.config.experts, this.channels.running);
    warnAboutChannels(this, options.config.experts);
    this.transportName = options.transport.name;
    this.threadedTransport = options.transport.threaded;
    this.transport = options.transport;
    this.review = {
      // A review channel needs a transport that can post to one.
      channel: options.transport.threaded ? (options.review?.channel ?? null) : null,
      reviewers: options.review?.reviewers ?? [],
      remindAfterMs: options.review?.remindAfterMs ?? 3_600_000,
      emailReviewers: options.review?.emailReviewers ?? [],
      channelOn: options.review?.channelOn ?? 'slack',
      teamsReviewers: options.review?.teamsReviewers ?? [],
      rules: options.review?.rules ?? [],
      adminsDecide: options.review?.adminsDecide ?? true,
    };
    this.instanceId = options.instanceId ?? newClaimantId();
    this.allowPrivateWebhooks = options.allowPrivateWebhooks ?? false;
    this.llm = options.llm?.settings ?? null;
    this.llmBacklog = this.llm ? new LlmBacklog(this.llm.concurrency, this.llm.timeoutMs) : null;
    this.presence = options.presence ? new PresenceCache(options.presence, this.clock, this.log, (id) => this.placeWaitingOf(id)) : null;
    this.dueWork = new DueWorkState(options.dueWork);
  }

  /** Called once by the composition root (`composeService`) with the workers it built for this service. */
  attach(workers: ServiceWorkers): void {
    if (this.workers) throw new Error('the service already has its workers');
    this.workers = workers;
  }

  private get attached(): ServiceWorkers {
    if (!this.workers) throw new Error('the service has no workers: build it with composeService');
    return this.workers;
  }

  /** Sends the message outbox through the transport. */
  get messages(): MessageDispatcher {
    return this.attached.messages;
  }

  /** Delivers the event outbox to consumers. */
  get deliveries(): DeliveryDispatcher {
    return this.attached.deliveries;
  }

  /** Runs drafting and structuring jobs; null without an LLM. */
  get llmWorker(): LlmWorker | null {
    return this.attached.llmWorker;
  }

  /** An expert's chat status became known: their waiting asks get their chance. */
  private async placeWaitingOf(expertId: string): Promise<void> {
    await this.store.transaction((tx) => placeWaiting(this, tx, new Set([expertId]), this.clock.now()));
    this.committed(undefined);
  }

  onMessagesQueued(): void {
    this.messages.kick();
  }

  onEventsQueued(): void {
    this.deliveries.kick();
  }

  /** Wakes whatever may have work after a commit, and tells live views; returns `result`. */
  protected committed<T>(result: T): T {
    this.onMessagesQueued();
    this.onEventsQueued();
    this.changes.publish();
    this.llmWorker?.kick();
    return result;
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

  /** Wakes both dispatchers and the LLM worker: due work is picked up (the server calls this every tick). */
  kick(): void {
    this.onMessagesQueued();
    this.onEventsQueued();
    this.llmWorker?.kick();
  }

  /**
   * Acts on everything due at the clock's now (give-ups, escalations, quiet hours ending, held and
   * queued work; `runDueWork`), then wakes both dispatchers. The composition root's timer calls it every
   * `server.tick_ms`; tests move a fake clock and call it.
   */
  async tick(): Promise<TickResult> {
    const now = this.clock.now();
    const started = performance.now();
    this.lastTickAt = Date.now();
    if (this.llmBacklog) {
      // An estimate: a failed count keeps the last one (and what was queued since), and the tick goes on.
      const waiting = await this.store.llmJobs.countWaiting(now).catch(() => null);
      if (waiting !== null) this.llmBacklog.count(waiting);
    }
    // LLM work past its deadline falls back first, so the asks it held go out in this same tick.
    if (this.llm) await expireLlmJobs(this, now, this.messages);
    const result = await runDueWork(this, this.dueWork, now);
    this.ticks.emit('tick', (performance.now() - started) / 1000);
    return this.committed(result);
  }

  /**
   * Waits for LLM jobs, then messages and deliveries in flight (tests, shutdown). LLM jobs first: a
   * finished draft queues asks, a finished structuring queues events.
   */
  async idle(): Promise<void> {
    await this.presence?.idle();
    await this.llmWorker?.idle();
    await Promise.all([this.messages.idle(), this.deliveries.idle()]);
  }
}
