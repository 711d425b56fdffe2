import type { DeliveryJob, DeliveryRecord, EventRecord, MessageRecord } from '../../domain/records.js';
import type { DeliveryClaim, DeliveryOutcome, DeliveryQuery, OutboxRepository, WorkClaim } from '../store.js';
import { PgDeliveries } from './deliveries.js';
import { PgMessages } from './messages.js';
import type { Db } from './sql.js';

/** The transactional outbox in PostgreSQL: messages to experts, and events with their deliveries. */
export class PgOutbox implements OutboxRepository {
  private readonly m: PgMessages;
  private readonly d: PgDeliveries;

  /** `locking` is part of every repository's signature; the outbox's claims lock what they pick either way. */
  constructor(db: Db, _locking: boolean) {
    this.m = new PgMessages(db);
    this.d = new PgDeliveries(db);
  }

  async insertEvent(event: EventRecord): Promise<void> {
    await this.d.insertEvent(event);
  }

  async events(requestId: string): Promise<EventRecord[]> {
    return this.d.events(requestId);
  }

  async enqueueMessage(message: MessageRecord): Promise<void> {
    await this.m.enqueue(message);
  }

  async messages(requestId: string): Promise<MessageRecord[]> {
    return this.m.listFor(requestId);
  }

  async askElements(askId: string): Promise<string[] | null> {
    return this.m.askElements(askId);
  }

  async claimMessages(claim: WorkClaim): Promise<MessageRecord[]> {
    return this.m.claim(claim);
  }

  async markMessagesSent(ids: readonly string[], at: number): Promise<void> {
    await this.m.markSent(ids, at);
  }

  async rescheduleMessage(id: string, owner: string, error: string, nextAttemptAt: number | null): Promise<boolean> {
    return this.m.reschedule(id, owner, error, nextAttemptAt);
  }

  async dropMessage(id: string, why: string): Promise<void> {
    await this.m.drop(id, why);
  }

  async insertDelivery(delivery: DeliveryRecord): Promise<void> {
    await this.d.insert(delivery);
  }

  async getDelivery(id: string): Promise<DeliveryRecord | undefined> {
    return this.d.get(id);
  }

  async deliveries(query: DeliveryQuery): Promise<DeliveryRecord[]> {
    return this.d.list(query);
  }

  async claimDeliveries(claim: DeliveryClaim): Promise<DeliveryJob[]> {
    return this.d.claim(claim);
  }

  async finishDelivery(id: string, outcome: DeliveryOutcome): Promise<void> {
    await this.d.finish(id, outcome);
  }

  async dropPendingDeliveries(consumerId: string, _at: number): Promise<DeliveryRecord[]> {
    return this.d.dropPending(consumerId);
  }

  async retryDelivery(id: string, now: number): Promise<void> {
    await this.d.retry(id, now);
  }

  async anyDueMessage(now: number): Promise<boolean> {
    return this.m.anyDue(now);
  }

  async anyDueDelivery(now: number): Promise<boolean> {
    return this.d.anyDue(now);
  }

  async renewLeases(work: 'message' | 'delivery', ids: readonly string[], owner: string, leaseUntil: number): Promise<number> {
    return (work === 'message' ? this.m : this.d).renewLeases(ids, owner, leaseUntil);
  }
}
