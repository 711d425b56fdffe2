import { namedRules } from './config/review-rules-schema.js';
import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import { ConfigError, type Config, type Secrets } from './config/load-config.js';
import { DeliveryDispatcher } from './delivery/delivery-dispatcher.js';
import { MessageDispatcher } from './delivery/message-dispatcher.js';
import { configureLlm } from './llm/configure-llm.js';
import { configuredChannels } from './core/check-channels.js';
import { countOne } from './service/engine/index.js';
import { ExpertqService, type ExpertqServiceOptions } from './service/expertq-service.js';
import { LlmWorker } from './service/llm/index.js';
import { InstanceHeartbeat, Pruner, type RetentionSettings } from './service/operations/index.js';
import { reviewCardOf, SLACK_REVIEW, TEAMS_REVIEW } from './service/review/index.js';
import { askUndeliverable } from './service/routing/index.js';
import type { Store } from './store/store.js';
import { slackCode } from './transport/slack/slack-code.js';
import type { AddressBook, Transport } from './transport/transport.js';
import { runningChannels } from './transport/channel-set.js';
import { addressOn } from './domain/channels.js';

/*
 * The composition root: every worker of a process is built here, and nowhere else.
 * - `composeService`: the service and the workers that carry out what it commits (chat messages,
 *   webhook deliveries, LLM jobs), woken by the service after each commit.
 * - `wireService`: configuration → LLM client → `composeService` → transport started → the timers
 *   (the tick every `server.tick_ms`, retention pruning, the instance heartbeat).
 * `createService` (the SDK, and `startServer` through it) and the test harness open the store and the
 * configuration and call `wireService`; tests and benchmarks that drive time themselves call `composeService`.
 */

export interface ComposeServiceOptions extends ExpertqServiceOptions {
  /** Tuning for the webhook dispatcher (tests shorten the timeout). */
  delivery?: { timeoutMs?: number; maxInFlight?: number; perConsumer?: number };
  /** How long a claim on work lasts (`server.work_lease`); default `WORK_LEASE_MS`. */
  leaseMs?: number;
}

/**
 * Builds an `ExpertqService` with its dispatchers and LLM worker. Each worker claims its work with a
 * lease in this process's name, so processes sharing a database never do one piece of work at once.
 * The service knows the workers only to wake them after a commit. Nothing runs on a timer: call
 * `service.tick()` (or use `wireService`).
 */
export function composeService(options: ComposeServiceOptions): ExpertqService {
  const service = new ExpertqService(options);
  const lease = options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs };
  const deliveries = new DeliveryDispatcher(service.store, service.clock, service.log, {
    allowPrivate: service.allowPrivateWebhooks,
    instanceId: service.instanceId,
    ...lease,
    ...options.delivery,
  });
  const messages = new MessageDispatcher(
    service.store,
    options.transport,
    service.clock,
    service.log,
    {
      onUndeliverable: (tx, message, code, now) => askUndeliverable(service, tx, message.ask_id!, code, now, message.channel ?? null),
      afterOutcomes: () => deliveries.kick(),
      reviewCard: (proposalId, now) => reviewCardOf(service.store, proposalId, now, service),
      onFailure: (code) => countOne(service.counters.transportFailures, code),
    },
    { instanceId: service.instanceId, ...lease },
  );
  const llmWorker = options.llm ? new LlmWorker(service, options.llm, () => service.kick(), { instanceId: service.instanceId, ...lease }) : null;
  service.attach({ messages, deliveries, llmWorker });
  return service;
}

export interface WireServiceOptions {
  /** The configuration, already loaded. */
  config: Config;
  secrets: Secrets;
  store: Store;
  log: Logger;
  clock: Clock;
  /**
   * A transport, or one built from the service's expert names (the console transport prints them) and
   * its address book (channels know experts by their addresses).
   */
  transport: Transport | ((expertName: (id: string) => string, book: AddressBook) => Transport);
  /** Run the tick, pruning and the heartbeat on timers. Tests turn them off and call `service.tick()` themselves. */
  timers: boolean;
  /** Tuning for the webhook dispatcher (tests shorten the timeout). */
  delivery?: ComposeServiceOptions['delivery'];
}

export interface WiredService {
  service: ExpertqService;
  transport: Transport;
  /** The tick's timer; null without timers. */
  timer: NodeJS.Timeout | null;
  /** Retention (`storage.retention*`) and expired sessions: hourly with timers, or on demand. */
  pruner: Pruner;
  /** The pruner's hourly timer; null without timers. */
  pruneTimer: NodeJS.Timeout | null;
  /** This process in the instances list (`GET /instances`); null without timers. */
  heartbeat: InstanceHeartbeat | null;
}

/**
 * Configuration → LLM client → service and its workers → transport started → work left over from
 * before a stop kicked → timers. The store is opened (and locked) by the caller, who closes it if this
 * throws (a transport that cannot start throws a ConfigError naming it).
 */
export async function wireService(options: WireServiceOptions): Promise<WiredService> {
  const { config, log, clock } = options;
  await keepInsightsIn(options.store, config.org.timezone, log);
  const llm = configureLlm(config, options.secrets, log);
  const book: AddressBook = {
    addressOf: (id, channel) => {
      const expert = service.experts.get(id);
      return expert ? addressOn(expert, channel) : null;
    },
    expertAt: (channel, address) => service.experts.at(channel, address)?.id ?? null,
  };
  const transport = typeof options.transport === 'function' ? options.transport((id) => service.experts.get(id)?.name ?? id, book) : options.transport;
  const service: ExpertqService = composeService({
    config,
    store: options.store,
    transport,
    log,
    clock,
    channels: {
      configured: configuredChannels(config),
      running: new Set(runningChannels(transport)),
    },
    review: {
      channel: config.chat?.review_channel ?? (runningChannels(transport).includes('teams') ? (config.teams?.review_channel ?? null) : null),
      channelOn: config.chat?.review_channel ? 'slack' : 'teams',
      reviewers: config.chat?.reviewers ?? [],
      teamsReviewers: (config.teams?.reviewers ?? []).map((id) => id.toLowerCase()),
      remindAfterMs: config.review.remind_after,
      emailReviewers: runningChannels(transport).includes('email') ? (config.email?.reviewers ?? []).map((a) => a.toLowerCase()) : [],
      rules: namedRules(config.review.rules),
      adminsDecide: config.review.admins_decide,
    },
    allowPrivateWebhooks: config.server.allow_private_webhooks,
    ...(options.delivery ? { delivery: options.delivery } : {}),
    leaseMs: config.server.work_lease,
    llm,
    // Only with the setting on and a transport that can say: otherwise no status lookup is ever made.
    presence: config.chat?.use_slack_status && transport.presence ? (id) => transport.presence!(id) : null,
  });
  try {
    await transport.start({
      reply: (reply) => service.receiveInbound(reply),
      review: (action) => service.reviewFromChat(action, action.via === 'teams' ? TEAMS_REVIEW : SLACK_REVIEW),
      answerOf: async (id) => (await service.store.proposals.get(id))?.answer ?? null,
      reviewCard: (id) => reviewCardOf(service.store, id, clock.now(), service),
      home: (id) => service.expertHome(id),
      setAway: (id, away) => service.awayFromChat(id, away),
      autoReply: (notice) => service.receiveNotice({ kind: 'auto_reply', ...notice }),
      undeliverable: (notice) => service.receiveNotice({ kind: 'undeliverable', ...notice }),
      refused: (notice) => service.receiveNotice({ kind: 'refused', ...notice }),
    });
  } catch (error) {
    throw new ConfigError(`The ${transport.name} transport could not start: ${slackCode(error)}${config.chat?.app_token_env ? ` (check ${config.chat.app_token_env})` : ''}.`);
  }

  // Anything committed but not delivered (or drafted, or structured) before a stop goes on now; due work every tick.
  service.kick();
  const timer = options.timers ? startTicking(service, config.server.tick_ms, log) : null;
  const pruner = new Pruner(options.store, retentionOf(config), clock, log);
  const pruneTimer = options.timers ? startPruning(pruner, log) : null;
  // A serving process lists itself in the instances table (`GET /instances`).
  const heartbeat = options.timers ? new InstanceHeartbeat(service) : null;
  try {
    await heartbeat?.start();
  } catch (error) {
    if (timer) clearInterval(timer);
    if (pruneTimer) clearInterval(pruneTimer);
    throw error;
  }
  return { service, transport, timer, pruner, pruneTimer, heartbeat };
}

/**
 * The tick: catch up now on whatever fell due while stopped, then every `tickMs` (it also kicks both
 * dispatchers, so due retries go out). One tick at a time: a tick still running when the next is due
 * lets that one pass. A failed tick (say, the disk is briefly full) is logged, never thrown: every
 * deadline stays in the database, and the next tick picks it up.
 */
function startTicking(service: ExpertqService, tickMs: number, log: Logger): NodeJS.Timeout {
  const runTick = async () => {
    try {
      await service.tick();
    } catch (error) {
      log.error({ err: error }, 'scheduler tick failed; due work is retried on the next tick');
    }
  };
  let ticking: Promise<void> | null = null;
  const tick = () => {
    ticking ??= runTick().finally(() => (ticking = null));
  };
  tick();
  const timer = setInterval(tick, tickMs);
  timer.unref();
  return timer;
}

/** Retention (when configured) and expired sign-in sessions: once at start (in batches, after start-up work), then every hour. */
function startPruning(pruner: Pruner, log: Logger): NodeJS.Timeout {
  const prune = () => void pruner.run().catch((error) => log.error({ err: error }, 'pruning (retention, expired sign-in sessions) failed; trying again in an hour'));
  setImmediate(prune);
  const timer = setInterval(prune, PRUNE_EVERY_MS);
  timer.unref();
  return timer;
}

const PRUNE_EVERY_MS = 3_600_000;

export function retentionOf(config: Config): RetentionSettings {
  return { retention: config.storage.retention, retentionRequests: config.storage.retention_requests };
}

/** The insights' day and week rows follow org.timezone: rebuilt from the hour rows when it changed, said beforehand with an estimate. */
async function keepInsightsIn(store: Store, zone: string, log: Logger): Promise<void> {
  const started = Date.now();
  let rows = 0;
  await store.keepInsightsIn(zone, (hourRows, estimatedMs) => {
    rows = hourRows;
    // A new database has nothing to build: nothing to say.
    if (rows === 0) return;
    const seconds = Math.ceil(estimatedMs / 1000);
    log.info({ time_zone: zone, hour_rows: rows, estimated_ms: seconds * 1000 }, `insights: building day and week figures in ${zone} from ${rows.toLocaleString('en-US')} hour rows: about ${seconds} s`);
  });
  if (rows > 0) log.info({ time_zone: zone, ms: Date.now() - started }, `insights: day and week figures built in ${zone} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
