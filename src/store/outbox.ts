import type { DeliveryJob, DeliveryRecord, EventRecord, MessageRecord } from '../domain/records.js';
import type { DeliveryClaim, DeliveryOutcome, DeliveryQuery, MessageLease, OutboxRepository, WorkClaim } from './store.js';

type Maybe<T> = T | Promise<T>;

/** What an engine's message outbox does (its methods may answer at once or with a promise). */
export interface MessageOutbox {
  enqueue(message: MessageRecord, lease?: MessageLease): Maybe<void>;
  listFor(requestId: string): Maybe<MessageRecord[]>;
  askElements(askId: string): Maybe<string[] | null>;
  claim(claim: WorkClaim): Maybe<MessageRecord[]>;
  markSent(ids: readonly string[], at: number): Maybe<void>;
  reschedule(id: string, owner: string, error: string, nextAttemptAt: number | null): Maybe<boolean>;
  drop(id: string, why: string): Maybe<void>;
  anyDue(now: number): Maybe<boolean>;
  renewLeases(ids: readonly string[], owner: string, leaseUntil: number): Maybe<number>;
}

/** What an engine's event outbox does: events and their deliveries to consumers. */
export interface DeliveryOutbox {
  insertEvent(event: EventRecord): Maybe<void>;
  events(requestId: string): Maybe<EventRecord[]>;
  insert(delivery: DeliveryRecord): Maybe<void>;
  get(id: string): Maybe<DeliveryRecord | undefined>;
  list(query: DeliveryQuery): Maybe<DeliveryRecord[]>;
  claim(claim: DeliveryClaim): Maybe<DeliveryJob[]>;
  finish(id: string, outcome: DeliveryOutcome): Maybe<void>;
  dropPending(consumerId: string): Maybe<DeliveryRecord[]>;
  retry(id: string, now: number): Maybe<void>;
  anyDue(now: number): Maybe<boolean>;
  renewLeases(ids: readonly string[], owner: string, leaseUntil: number): Maybe<number>;
}

/**
 * The transactional outbox, for every engine: messages to experts, and events with their deliveries,
 * each kept by the engine's own half.
 */
export class Outbox implements OutboxRepository {
  constructor(
    private readonly m: MessageOutbox,
    private readonly d: DeliveryOutbox,
  ) {}

  async insertEvent(event: EventRecord): Promise<void> {
    await this.d.insertEvent(event);
  }

  async events(requestId: string): Promise<EventRecord[]> {
    return this.d.events(requestId);
  }

  async enqueueMessage(message: MessageRecord, lease?: MessageLease): Promise<void> {
    await this.m.enqueue(message, lease);
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
