import type { Logger } from 'pino';
import type { KnownKeys } from './known-keys.js';
import type { Clock } from '../../clock.js';
import type { ChannelPlan } from '../../core/check-channels.js';
import type { ChannelName } from '../../domain/channels.js';
import type { Config } from '../../config/load-config.js';
import type { ReviewRule } from '../../config/review-rules-schema.js';
import type { ExpertRegistry } from '../../core/expert-registry.js';
import type { ReuseOutcome } from '../../domain/reuse.js';
import { startOfLocalDay, startOfNextLocalDay } from '../../core/local-time.js';
import { newId } from '../../ids.js';
import type { LlmSettings } from '../../llm/create-llm-client.js';
import type { AuditEntry, ConsumerRecord, EventRecord, EventType, ExpertLiveState, MessageRecord, RequestRecord } from '../../domain/records.js';
import type { Reads, Store, Tx } from '../../store/store.js';
import type { PresenceCache } from './presence-cache.js';
import type { LlmBacklog } from './llm-backlog.js';
import { leaseFor } from './leased-messages.js';

/**
 * What operations run on: the store, the clock, the current registry and configuration, and the caches
 * and hooks beside them. The service (`ServiceBase`) is the one Engine; it is built at the composition
 * root and passed to operations so HTTP routes, the scheduler and the SDK can call them alike.
 *
 * An operation never takes the whole Engine: its first parameter names what it reads — the one value
 * when it reads one (`store: Engine['store']`), else `Pick<Engine, 'store' | 'clock'>` or one of the
 * shared needs below (`Roster`, `Attendance`, `Routing`, `Drafting`, `Intake`) — so a reader sees what
 * it depends on and a test can pass just that. One that
 * passes its engine on must ask for what the callee needs too (the compiler checks). Operations that
 * write take the transaction they write in (`tx`) beside it; waking the dispatchers after a commit
 * (`onMessagesQueued`, `onEventsQueued`) is the facade's and the tick's job, not an operation's.
 */
export interface Engine {
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: Pick<Config, 'org' | 'defaults' | 'topics' | 'library'> & { file: string | null };
  /** Swapped whole by `PUT /experts`. */
  experts: ExpertRegistry;
  /** The channels the service has configured and this process runs (which channel an ask takes). */
  readonly channels: ChannelPlan;
  /** Name recorded in provenance (`console`, `chat`). */
  readonly transportName: string;
  /**
   * The transport has threads and can edit what it posted (chat): experts then get a thread reply
   * after each reply and the ask message is updated when the ask closes.
   */
  readonly threadedTransport: boolean;
  /**
   * Review settings: the Slack channel where pending proposals are posted (null: none),
   * who may decide there, and how long the oldest pending proposal may wait before a reminder.
   */
  readonly review: ReviewSettings;
  /** Counts kept in memory for `/metrics` (events that leave no row to count). */
  readonly counters: ServiceCounters;
  /** The LLM's settings when one is configured; null, and nothing LLM-related runs, otherwise. */
  readonly llm: LlmSettings | null;
  /** How far behind the model is (a new request is not drafted when no draft could be ready in time); null without an LLM. */
  readonly llmBacklog: LlmBacklog | null;
  /** Which topics (and kinds, `libraryKey`) the library has entries for: a submit on another skips the library lookup. */
  readonly libraryTopics: KnownKeys;
  /** Which consumers have a daily quota of their own: a submit of another reads no consumer row for it. */
  readonly quotaConsumers: KnownKeys;
  /** Experts' chat status (`chat.use_slack_status`); null when it is not consulted. */
  readonly presence: PresenceCache | null;
  /** Called after a transaction that queued messages to experts commits. */
  onMessagesQueued(): void;
  /** Called after a transaction that wrote events commits. */
  onEventsQueued(): void;
}

/** The organisation's settings and the expert registry: whose day starts when, in which zone, with what topics. */
export type Roster = Pick<Engine, 'config' | 'experts'>;

/** The roster and who is away now (availability rules, chat status): enough to choose an expert. */
export type Attendance = Roster & Pick<Engine, 'presence'>;

/** What placing, sending and passing on asks reads: attendance, the clock, the log and whether the transport has threads. */
export type Routing = Attendance & Pick<Engine, 'clock' | 'log' | 'threadedTransport'>;

/** What queueing LLM work reads: the model's settings, how far behind it is, and the counters its refusals go to. */
export type Drafting = Pick<Engine, 'clock' | 'counters' | 'llm' | 'llmBacklog'>;

/** What taking a request in reads (submit, a returned proposal, a judged library match): routing, drafting and review. */
export type Intake = Routing & Drafting & Pick<Engine, 'review' | 'channels'>;

export interface ServiceCounters {
  reviewReminders: number;
  /** Submits refused because their consumer reached its daily quota. */
  rateLimitedSubmits: number;
  /** Failed sends to experts, by transport error code. */
  transportFailures: Map<string, number>;
  /** LLM calls that failed or returned something unusable, by `stage` and `reason` (key `stage reason`). */
  llmFailures: Map<string, number>;
  /** Proposals made from a library entry, by what became of them. */
  reuse: Map<ReuseOutcome, number>;
  /** What a channel refused at the door (a reply token that does not verify, DMARC), by `channel why`. */
  refusedInbound: Map<string, number>;
  /** Reviewers' votes on proposals a review rule covers, by decision (`accept`, `reject`). */
  reviewVotes: Map<string, number>;
  /** Proposals decided since the last scrape: the rule that covered each (`none`) and its seconds from proposal to decision. */
  decisionTimes: Array<{ rule: string; seconds: number }>;
}

/** At most this many decision times wait for a scrape; with nobody scraping, the oldest go. */
export const DECISION_TIMES_KEPT = 10_000;

/** Adds one to a counter of a labelled count. */
export function countOne(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

export interface ReviewSettings {
  /** The review channel (Slack's `chat.review_channel` or Teams' `teams.review_channel`), or null. */
  channel: string | null;
  /** Which platform the review channel is on. */
  channelOn?: 'slack' | 'teams';
  /** `chat.reviewers`: Slack user ids allowed to decide from the Slack review channel. */
  reviewers: readonly string[];
  /** `teams.reviewers` (lower case): Entra object ids allowed to decide from Teams. */
  teamsReviewers?: readonly string[];
  remindAfterMs: number;
  /** `email.reviewers` (lower case) while the email channel runs: each pending proposal is mailed to them. */
  emailReviewers: readonly string[];
  /** `review.rules`, each named: who reviews which topics and kinds, and how many must agree. None: one vote by any reviewer. */
  rules?: readonly ReviewRule[];
  /** `review.admins_decide`: admins may vote on proposals a rule covers (default true). */
  adminsDecide?: boolean;
}

export async function audit(engine: Pick<Engine, 'clock'>, tx: Tx, entry: Omit<AuditEntry, 'at'> & { at?: number }): Promise<void> {
  // Each field written out, not spread: entries come in many shapes (see queueMessage).
  await tx.requests.appendAudit({ request_id: entry.request_id, at: entry.at ?? engine.clock.now(), type: entry.type, actor: entry.actor, data: entry.data });
}

/**
 * Writes an event and one delivery row per recipient in the current transaction (transactional
 * outbox): the dispatcher delivers after commit, so a committed state change never loses its events.
 * `only` restricts the recipients (the immediate `proposal_accepted` to a `deduped_resolved` submitter).
 */
export async function emitEvent(
  tx: Tx,
  request: RequestRecord,
  type: EventType,
  fields: Record<string, unknown>,
  at: number,
  only?: readonly string[],
): Promise<EventRecord> {
  const id = newId('evt');
  const event: EventRecord = {
    id,
    request_id: request.id,
    type,
    created_at: at,
    body: { event: type, id, created_at: new Date(at).toISOString(), request_id: request.id, ...fields },
  };
  await tx.outbox.insertEvent(event);
  const recipients = only
    ? (await tx.consumers.list()).filter((c) => only.includes(c.id))
    : (await subscribersOf(tx, request)).filter((c) => type !== 'proposal' || c.auto_accept);
  for (const consumer of recipients) {
    await tx.outbox.insertDelivery({
      id: newId('dlv'),
      event_id: id,
      consumer_id: consumer.id,
      request_id: request.id,
      state: 'pending',
      attempts: 0,
      next_attempt_at: at,
      last_status: null,
      last_error: null,
      created_at: at,
      delivered_at: null,
    });
  }
  return event;
}

/**
 * Subscribers of a request: registered consumers that submitted it or were attached by
 * deduplication, and every registered consumer whose `handles_kinds` has the request's kind or `*`.
 */
export async function subscribersOf(reads: Reads, request: Pick<RequestRecord, 'id' | 'kind'>): Promise<ConsumerRecord[]> {
  return subscribersAmong(await reads.consumers.list(), await reads.requests.subscribers(request.id), request.kind);
}

/** `subscribersOf` from what was read already: every consumer, and the ids attached to the request. */
export function subscribersAmong(consumers: readonly ConsumerRecord[], attachedIds: readonly string[], kind: string): ConsumerRecord[] {
  const attached = new Set(attachedIds);
  return consumers.filter((c) => attached.has(c.id) || c.handles_kinds.includes(kind) || c.handles_kinds.includes('*'));
}

/**
 * Queues a direct message to an expert in the current transaction; the dispatcher sends it after commit
 * (at once, when the transaction leases its asks: `leased-messages.ts`).
 */
export async function queueMessage(
  tx: Tx,
  message: Pick<MessageRecord, 'expert_id' | 'request_id' | 'ask_id' | 'purpose' | 'text'> & { elements?: string[]; proposal_id?: string; channel?: ChannelName | null },
  now: number,
): Promise<void> {
  // Each field written out: callers pass messages of several shapes, and spreading them took V8's
  // slow path (the largest single cost of queueing an ask, before).
  const record: MessageRecord = {
    id: newId('msg'),
    expert_id: message.expert_id,
    request_id: message.request_id,
    ask_id: message.ask_id,
    proposal_id: message.proposal_id ?? null,
    purpose: message.purpose,
    channel: message.channel ?? null,
    text: message.text,
    elements: message.elements ?? null,
    state: 'pending',
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
    sent_at: null,
    last_error: null,
  };
  await tx.outbox.enqueueMessage(record, leaseFor(tx, record, now));
}

export function dayStart(config: Engine['config'], now: number): number {
  return startOfLocalDay(now, config.org.timezone);
}

/** The time zone an expert's days and working hours are read in: their own, else the organisation's. */
export function zoneOf(engine: Roster, expertId: string): string {
  return engine.experts.get(expertId)?.timezone ?? engine.config.org.timezone;
}

/**
 * Live states, each expert's `asksToday` counted from the start of their own day: experts with their
 * own time zone are passed with their day's start, everyone else shares the organisation's. `settled`:
 * exact even in a transaction that routes optimistically (`TransactionOptions.optimisticRouting`).
 */
export function liveStates(engine: Roster, reads: Reads, ids: readonly string[] | null, now: number, settled = false): Promise<Map<string, ExpertLiveState>> {
  const dayStarts = ownDayStarts(engine, ids, now);
  return reads.asks.expertStates(ids, dayStart(engine.config, now), dayStarts.size > 0 ? dayStarts : undefined, settled);
}

/** The start of the day at `now` of each expert (null: every expert) with a time zone of their own. */
export function ownDayStarts(engine: Roster, ids: readonly string[] | null, now: number): Map<string, number> {
  const dayStarts = new Map<string, number>();
  const orgZone = engine.config.org.timezone;
  const byZone = new Map<string, number>();
  // Only the experts asked for: routing asks for a few at a time, and the registry may hold thousands.
  for (const expert of ids === null ? engine.experts.experts : ids.map((id) => engine.experts.get(id))) {
    if (!expert || expert.timezone === null || expert.timezone === orgZone) continue;
    let start = byZone.get(expert.timezone);
    if (start === undefined) byZone.set(expert.timezone, (start = startOfLocalDay(now, expert.timezone)));
    dayStarts.set(expert.id, start);
  }
  return dayStarts;
}

/** The next instant at which a day begins for anyone: the organisation or any expert in their own zone. */
export function nextDayStartOfAny(engine: Roster, now: number): number {
  const zones = new Set([engine.config.org.timezone, ...engine.experts.experts.map((e) => e.timezone).filter((z): z is string => z !== null)]);
  return Math.min(...[...zones].map((zone) => startOfNextLocalDay(now, zone)));
}
