import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { refChannel } from '../domain/channels.js';
import type { ChatRef, MessageRecord } from '../domain/records.js';
import { CoalescedRun } from './coalesced-run.js';
import { LeaseKeeper, newClaimantId, WORK_LEASE_MS } from '../store/lease-keeper.js';
import type { AskPlace, Store, Tx } from '../store/store.js';
import { NOT_SENT, TransportError, type OutboundMessage, type ReviewCard, type SentMessage, type Transport } from '../transport/transport.js';

export interface MessageDispatcherHooks {
  /** Called inside the outcome transaction when an ask could not be delivered for good (the service passes it on). */
  onUndeliverable?: (tx: Tx, message: MessageRecord, code: string, now: number) => Promise<void>;
  /** Called after an outcome transaction that passed an undeliverable ask on commits (it may have queued events). */
  afterOutcomes?: () => void;
  /** Called for every failed send, with the transport's error code (`/metrics`). */
  onFailure?: (code: string) => void;
  /** A proposal as the review channel shows it now (review-channel messages render it when they go out). */
  reviewCard?: (proposalId: string, now: number) => Promise<ReviewCard | null>;
}

/** Retry schedule for direct messages, after which a message is `dead` (and logged). */
export const MESSAGE_BACKOFF_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000] as const;
const BATCH = 200;

export interface MessageDispatcherOptions {
  /** Names this process on its leases (`claimed_by`); a fresh id by default. */
  instanceId?: string;
  leaseMs?: number;
}

/**
 * Drains the message outbox into the transport. Kicks in the same event-loop turn merge into one
 * drain; each batch is claimed with a lease (through the store's group commit, like the outcomes), sent
 * with no transaction open, and its outcomes recorded in one commit, so heavy load costs no extra fsync
 * per message. Asks a transaction wrote already leased to this process are sent as soon as it commits
 * (`sendLeased`), with no claim. Leases are renewed while a send runs, so processes sharing a database
 * never send one message twice; a process that dies mid-send leaves its leases to run out, and
 * whichever process looks next sends those messages again (at least once, never lost).
 */
export class MessageDispatcher {
  private readonly drains: CoalescedRun;
  private stopping = false;
  /** This process's name on the leases it holds. */
  readonly owner: string;
  /** How long a lease lasts unless renewed. */
  readonly leaseMs: number;
  private readonly leases: LeaseKeeper;
  /** Sends of messages written already leased to this process (`sendLeased`), under way. */
  private readonly leasedSends = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly transport: Transport,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly hooks: MessageDispatcherHooks = {},
    options: MessageDispatcherOptions = {},
  ) {
    this.owner = options.instanceId ?? newClaimantId();
    this.leaseMs = options.leaseMs ?? WORK_LEASE_MS;
    this.drains = new CoalescedRun(
      () => this.drain(),
      (error) => this.log.error({ err: error }, 'message dispatcher failed; will retry on the next tick'),
    );
    this.leases = new LeaseKeeper(
      this.leaseMs,
      (ids) => this.store.transaction((tx) => tx.outbox.renewLeases('message', ids, this.owner, this.clock.now() + this.leaseMs)),
      (error) => this.log.warn({ err: error }, 'could not renew the leases of messages being sent; will retry'),
    );
  }

  /** Whether `stop()` was called (then it takes no new work: `/readyz` reports it). */
  get stopped(): boolean {
    return this.stopping;
  }

  /** Takes no new work; `idle()` then waits only for the sends under way (graceful shutdown). */
  stop(): void {
    this.stopping = true;
    // Messages still waiting for their channel's turn stay in the outbox for the next claim.
    this.transport.stopSending?.();
  }

  /** Starts a drain soon, or once more after the one in progress. */
  kick(): void {
    if (!this.stopping) this.drains.kick();
  }

  /**
   * Sends messages that a transaction just committed already leased to this process (`owner`, for
   * `leaseMs`), with no claim of their own. After `stop()` it sends nothing: their leases run out and
   * whichever process claims next sends them. `places`: where their asks stood, read after the commit
   * (else they are looked up here).
   */
  sendLeased(messages: readonly MessageRecord[], places?: ReadonlyMap<string, AskPlace>): void {
    if (this.stopping || messages.length === 0) return;
    const ids = messages.map((m) => m.id);
    this.leases.hold(ids);
    const sending = this.send(messages, places)
      // An ask passed on (its expert unreachable) queued the next expert's ask: the drain sends it.
      .then((passedOn) => {
        if (passedOn > 0) this.kick();
      })
      .catch((error: unknown) => this.log.error({ err: error }, 'message dispatcher failed; the messages go out when their leases run out'))
      .finally(() => {
        this.leases.release(ids);
        this.leasedSends.delete(sending);
      });
    this.leasedSends.add(sending);
  }

  /** Resolves when no drain and no send of leased messages is in progress (tests and shutdown wait on it). */
  async idle(): Promise<void> {
    while (this.drains.busy || this.leasedSends.size > 0) {
      await this.drains.idle();
      await Promise.all(this.leasedSends);
    }
  }

  private async drain(): Promise<void> {
    while (!this.stopping) {
      const now = this.clock.now();
      if (!(await this.store.outbox.anyDueMessage(now))) return;
      const due = await this.store.transaction((tx) => tx.outbox.claimMessages({ now, owner: this.owner, leaseUntil: now + this.leaseMs, limit: BATCH }));
      if (due.length === 0) return;
      this.leases.hold(due.map((m) => m.id));
      try {
        await this.send(due);
      } finally {
        this.leases.release(due.map((m) => m.id));
      }
    }
  }

  /**
   * Sends a claimed batch and records its outcomes in one commit. Returns how many asks it passed on
   * (their experts could not be reached): the asks that replace them are new messages to send.
   */
  private async send(due: readonly MessageRecord[], known?: ReadonlyMap<string, AskPlace>): Promise<number> {
    // What no longer applies is dropped, not sent: an ask that closed before it went out (no stale
    // question, no stale buttons), or an edit of an ask message that was never posted.
    const dropped: Array<{ id: string; why: string }> = [];
    const batch: Array<{ message: MessageRecord; outbound: OutboundMessage }> = [];
    const places = known ?? (await this.store.chat.askPlaces(due.flatMap((m) => (m.ask_id ? [m.ask_id] : []))));
    for (const message of due) {
      const prepared = await this.prepare(message, message.ask_id ? places.get(message.ask_id) : undefined);
      if (typeof prepared === 'string') dropped.push({ id: message.id, why: prepared });
      else batch.push({ message, outbound: prepared });
    }
    const results = await Promise.allSettled(batch.map((b) => this.transport.send(b.outbound)));
    const now = this.clock.now();
    const sent: Array<{ message: MessageRecord; value: SentMessage | void }> = [];
    const failed: Array<{ message: MessageRecord; error: string; next: number | null; code: string; permanentCode: string | null }> = [];
    batch.forEach(({ message }, i) => {
      const result = results[i]!;
      if (result.status === 'fulfilled') {
        sent.push({ message, value: result.value });
        return;
      }
      const reason: unknown = result.reason;
      const coded = reason instanceof TransportError ? reason : null;
      // Given up before it started (stopping): nothing to record; its lease runs out and it goes out later.
      if (coded?.code === NOT_SENT) return;
      const delay = coded?.permanent ? undefined : MESSAGE_BACKOFF_MS[message.attempts];
      this.hooks.onFailure?.(coded?.code ?? 'error');
      failed.push({
        message,
        error: reason instanceof Error ? reason.message : String(reason),
        next: delay === undefined ? null : now + Math.max(delay, coded?.retryAfterMs ?? 0),
        code: coded?.code ?? 'error',
        permanentCode: coded?.permanent ? coded.code : null,
      });
    });
    const passedOn = await this.store.transaction(async (tx) => {
      let undeliverable = 0;
      for (const d of dropped) await tx.outbox.dropMessage(d.id, d.why);
      await tx.outbox.markMessagesSent(sent.map((s) => s.message.id), now);
      for (const { message, value } of sent) {
        if (value?.chat && message.purpose === 'ask' && message.ask_id) await tx.chat.setRef(message.ask_id, value.chat);
        if (value?.reviewCard && message.proposal_id) await tx.proposals.setReviewCard(message.proposal_id, value.reviewCard);
      }
      for (const f of failed) {
        // A message another process took over (this one stalled past its lease) is theirs to record.
        const mine = await tx.outbox.rescheduleMessage(f.message.id, this.owner, f.error, f.next);
        if (mine && f.permanentCode !== null && f.message.purpose === 'ask' && this.hooks.onUndeliverable) {
          await this.hooks.onUndeliverable(tx, f.message, f.permanentCode, now);
          undeliverable++;
        }
      }
      return undeliverable;
    });
    if (passedOn > 0) this.hooks.afterOutcomes?.();
    for (const { message, error, next, code } of failed) {
      const to = message.purpose.startsWith('review_') ? 'message to the review channel' : 'message to expert';
      this.log[next === null ? 'error' : 'warn'](
        { message_id: message.id, expert_id: message.expert_id, request_id: message.request_id, attempts: message.attempts + 1, code, err: error },
        next === null ? `${to} failed for good` : `${to} failed; will retry`,
      );
    }
    return passedOn;
  }

  /** The message as the transport takes it, or why it is dropped. `place`: where its ask stands, if it has one. */
  private async prepare(m: MessageRecord, place: AskPlace | undefined): Promise<OutboundMessage | string> {
    const { outbox, proposals } = this.store;
    const channel = m.channel ?? null;
    // A place on another channel is no place here (an ask moved from Slack to email starts afresh).
    const here = (ref: ChatRef | null | undefined) => (ref && (channel === null || refChannel(ref) === channel) ? ref : null);
    let thread = here(place?.ref);
    // An expert asked again on the same request (a sent-back answer) is asked in the first ask's thread.
    if (m.purpose === 'ask' && !thread) thread = here(place?.firstRef);
    let elements = m.elements;
    if (m.purpose === 'ask' && m.ask_id && place?.state !== 'open') {
      return 'the ask closed before it was sent';
    }
    if (m.purpose === 'ask_update') {
      if (!thread || !m.ask_id) return 'the ask message was never posted';
      elements = await outbox.askElements(m.ask_id);
    }
    const base: OutboundMessage = { id: m.id, expertId: m.expert_id, requestId: m.request_id, askId: m.ask_id, purpose: m.purpose, channel, text: m.text, elements, thread };
    if (this.transport.carries && !this.transport.carries(base)) return `the ${channel ?? this.transport.name} channel does not carry ${m.purpose} messages`;
    if (m.purpose === 'review_card' || m.purpose === 'review_update' || m.purpose === 'review_mail') {
      const card = m.proposal_id && this.hooks.reviewCard ? await this.hooks.reviewCard(m.proposal_id, this.clock.now()) : null;
      if (!card) return 'the proposal is gone';
      // A mail asks for a decision: once the proposal is decided there is nothing to ask.
      if (m.purpose === 'review_mail') return card.decision === null ? { ...base, card } : 'the proposal was decided before the mail went out';
      const cardRef = (await proposals.reviewCard(m.proposal_id!)) ?? null;
      if (m.purpose === 'review_update' && !cardRef) return 'the review card was never posted';
      // A card whose first post failed and is retried after the decision is simply posted decided.
      return { ...base, card, cardRef };
    }
    return base;
  }
}
