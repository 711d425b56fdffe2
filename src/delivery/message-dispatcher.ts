import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { MessageRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { Transport } from '../transport/transport.js';

/** Retry schedule for direct messages, after which a message is `dead` (and logged). */
export const MESSAGE_BACKOFF_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000] as const;
const BATCH = 200;

/**
 * Drains the message outbox into the transport. Kicks in the same event-loop turn merge into one
 * drain; each batch is read, sent with no transaction open, and its outcomes recorded through the
 * store's group commit, so heavy load costs no extra fsync per message. One expertq process owns a
 * database, so the in-process drain needs no lease: a crash mid-send leaves rows pending, and they are
 * sent again at start-up (at least once, never lost).
 */
export class MessageDispatcher {
  private running: Promise<void> | null = null;
  private again = false;
  private stopping = false;

  constructor(
    private readonly store: Store,
    private readonly transport: Transport,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** Takes no new work; `idle()` then waits only for the batch in flight (graceful shutdown). */
  stop(): void {
    this.stopping = true;
  }

  /** Starts a drain soon, or once more after the one in progress. */
  kick(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drain())
      .catch((error) => this.log.error({ err: error }, 'message dispatcher failed; will retry on the next tick'))
      .finally(() => {
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
    while (!this.stopping) {
      const batch = this.store.dueMessages(this.clock.now(), BATCH);
      if (batch.length === 0) return;
      const results = await Promise.allSettled(batch.map((m) => this.send(m)));
      const now = this.clock.now();
      const sent = batch.filter((_, i) => results[i]!.status === 'fulfilled').map((m) => m.id);
      const failed = batch.flatMap((message, i) => {
        const result = results[i]!;
        if (result.status === 'fulfilled') return [];
        const error = result.reason instanceof Error ? result.reason.message : String(result.reason);
        const delay = MESSAGE_BACKOFF_MS[message.attempts];
        return [{ message, error, next: delay === undefined ? null : now + delay }];
      });
      await this.store.commit(() => {
        this.store.markMessagesSent(sent, now);
        for (const f of failed) this.store.rescheduleMessage(f.message.id, f.error, f.next);
      });
      for (const { message, error, next } of failed) {
        this.log[next === null ? 'error' : 'warn'](
          { message_id: message.id, expert_id: message.expert_id, request_id: message.request_id, attempts: message.attempts + 1, err: error },
          next === null ? 'message to expert failed for good' : 'message to expert failed; will retry',
        );
      }
    }
  }

  private send(m: MessageRecord): Promise<void> {
    return this.transport.send({ id: m.id, expertId: m.expert_id, requestId: m.request_id, purpose: m.purpose, text: m.text });
  }
}
