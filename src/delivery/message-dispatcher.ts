import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { MessageRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { Transport } from '../transport/transport.js';

/** Retry schedule for direct messages, after which a message is `dead` (and logged). */
export const MESSAGE_BACKOFF_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000] as const;
const LEASE_MS = 60_000;
const BATCH = 100;

/**
 * Drains the message outbox into the transport. Messages are claimed with a lease in one UPDATE …
 * RETURNING, sent with no transaction open, and marked sent in one transaction per batch, so heavy
 * load costs one commit per batch rather than per message. A crash mid-send leaves the lease to
 * expire, and the message is sent again: at least once, never lost.
 */
export class MessageDispatcher {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly store: Store,
    private readonly transport: Transport,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** Starts a drain now, or once more after the one in progress. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Resolves when no drain is in progress (tests and shutdown wait on it). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const batch = this.store.claimMessages(now, now + LEASE_MS, BATCH);
      if (batch.length === 0) return;
      const results = await Promise.allSettled(batch.map((m) => this.send(m)));
      const sent: string[] = [];
      results.forEach((result, i) => {
        const message = batch[i]!;
        if (result.status === 'fulfilled') {
          sent.push(message.id);
          return;
        }
        const error = result.reason instanceof Error ? result.reason.message : String(result.reason);
        const delay = MESSAGE_BACKOFF_MS[message.attempts - 1];
        const next = delay === undefined ? null : this.clock.now() + delay;
        this.store.rescheduleMessage(message.id, error, next);
        this.log[next === null ? 'error' : 'warn'](
          { message_id: message.id, expert_id: message.expert_id, request_id: message.request_id, attempts: message.attempts, err: error },
          next === null ? 'message to expert failed for good' : 'message to expert failed; will retry',
        );
      });
      if (sent.length > 0) this.store.markMessagesSent(sent, this.clock.now());
    }
  }

  private send(m: MessageRecord): Promise<void> {
    return this.transport.send({ id: m.id, expertId: m.expert_id, requestId: m.request_id, purpose: m.purpose, text: m.text });
  }
}
