import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { Clock } from '../clock.js';
import type { AuditEntry, ConsumerRecord, DeliveryJob, EventType } from '../domain/records.js';
import { LeaseKeeper, newClaimantId, WORK_LEASE_MS } from '../store/lease-keeper.js';
import type { DeliveryOutcome, Store } from '../store/store.js';
import { nextRetryDelay, parseRetryAfter } from './backoff.js';
import { postWebhook } from './post-webhook.js';

/** Handlers of an in-process consumer; each gets the same event object a webhook would. */
export interface ConsumerHandlers {
  onProposal?: (event: Record<string, unknown>) => unknown;
  onProposalAccepted?: (event: Record<string, unknown>) => unknown;
  onProposalRejected?: (event: Record<string, unknown>) => unknown;
  onRequestFailed?: (event: Record<string, unknown>) => unknown;
  /** The request gives up soon (`defaults.warn_before`): the consumer may decide to stop waiting. */
  onRequestExpiring?: (event: Record<string, unknown>) => unknown;
}

const HANDLER: Record<EventType, keyof ConsumerHandlers> = {
  proposal: 'onProposal',
  proposal_accepted: 'onProposalAccepted',
  proposal_rejected: 'onProposalRejected',
  request_failed: 'onRequestFailed',
  request_expiring: 'onRequestExpiring',
};

export interface DispatcherOptions {
  allowPrivate: boolean;
  maxInFlight?: number;
  perConsumer?: number;
  leaseMs?: number;
  timeoutMs?: number;
  /** Names this process on its leases (`claimed_by`); a fresh id by default. */
  instanceId?: string;
}

interface Finished {
  job: DeliveryJob;
  outcome: DeliveryOutcome;
}

/**
 * Delivers the outbox: claims due deliveries with a lease, sends them with no transaction open, and
 * records outcomes in one transaction per batch. Up to `maxInFlight` attempts run at once and at most
 * about `perConsumer` per consumer, so one slow or dead endpoint never holds up the others. Leases are
 * renewed while an attempt runs (an in-process handler may take its time), so processes sharing a
 * database never send one delivery at once. A crash leaves its leases to run out (start-up takes back
 * only expired ones: another live process may hold the rest); the rows are then claimed again by any
 * process and sent with the same `webhook-id`.
 */
export class DeliveryDispatcher {
  private readonly handlers = new Map<string, ConsumerHandlers>();
  private readonly inFlightBy = new Map<string, number>();
  private inFlight = 0;
  private pumping = false;
  private stopping = false;
  private again = false;
  private finished: Finished[] = [];
  private flushing: Promise<void> | null = null;
  private readonly maxInFlight: number;
  private readonly perConsumer: number;
  private readonly leaseMs: number;
  private readonly owner: string;
  private readonly leases: LeaseKeeper;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: DispatcherOptions,
  ) {
    this.maxInFlight = options.maxInFlight ?? 64;
    this.perConsumer = options.perConsumer ?? 8;
    this.leaseMs = options.leaseMs ?? WORK_LEASE_MS;
    this.owner = options.instanceId ?? newClaimantId();
    this.leases = new LeaseKeeper(
      this.leaseMs,
      (ids) => this.store.transaction((tx) => tx.outbox.renewLeases('delivery', ids, this.owner, this.clock.now() + this.leaseMs)),
      (error) => this.log.warn({ err: error }, 'could not renew the leases of deliveries in flight; will retry'),
    );
  }

  /** Takes no new work; `idle()` then waits only for attempts already in flight (graceful shutdown). */
  /** Whether `stop()` was called (then it takes no new work: `/readyz` reports it). */
  get stopped(): boolean {
    return this.stopping;
  }

  stop(): void {
    this.stopping = true;
  }

  setHandlers(consumerId: string, handlers: ConsumerHandlers | null): void {
    if (handlers) this.handlers.set(consumerId, handlers);
    else this.handlers.delete(consumerId);
  }

  kick(): void {
    if (this.stopping) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    this.pump()
      .catch((error: unknown) => this.log.error({ err: error }, 'delivery dispatcher failed to claim work'))
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          setImmediate(() => this.kick());
        }
      });
  }

  /** Resolves once nothing is in flight or waiting to be recorded. */
  async idle(): Promise<void> {
    while (this.inFlight > 0 || this.pumping || this.finished.length > 0 || this.flushing) {
      await (this.flushing ?? new Promise((resolve) => setImmediate(resolve)));
    }
  }

  private async pump(): Promise<void> {
    const consumers = new Map<string, ConsumerRecord>();
    while (this.inFlight < this.maxInFlight && !this.stopping) {
      const now = this.clock.now();
      const claim = {
        now,
        owner: this.owner,
        leaseUntil: now + this.leaseMs,
        limit: this.maxInFlight - this.inFlight,
        perConsumer: this.perConsumer,
        inFlight: Object.fromEntries(this.inFlightBy),
        live: [...this.handlers.keys()],
      };
      // Woken after every commit, the dispatcher mostly finds nothing due: a read answers that without a write.
      if (!(await this.store.outbox.anyDueDelivery(now))) return;
      const jobs = await this.store.transaction((tx) => tx.outbox.claimDeliveries(claim));
      if (jobs.length === 0) return;
      for (const job of jobs) {
        if (!consumers.has(job.consumer_id)) {
          const consumer = await this.store.consumers.get(job.consumer_id);
          if (consumer) consumers.set(consumer.id, consumer);
        }
        this.start(job, consumers.get(job.consumer_id));
      }
    }
  }

  private start(job: DeliveryJob, consumer: ConsumerRecord | undefined): void {
    this.inFlight++;
    this.inFlightBy.set(job.consumer_id, (this.inFlightBy.get(job.consumer_id) ?? 0) + 1);
    this.leases.hold([job.id]);
    void this.attempt(job, consumer)
      .catch((error: Error) => this.failure(job, null, error.message, undefined))
      .then((outcome) => {
        this.finished.push({ job, outcome });
      })
      .finally(() => {
        this.leases.release([job.id]);
        this.inFlight--;
        const left = (this.inFlightBy.get(job.consumer_id) ?? 1) - 1;
        if (left === 0) this.inFlightBy.delete(job.consumer_id);
        else this.inFlightBy.set(job.consumer_id, left);
        this.scheduleFlush();
      });
  }

  private async attempt(job: DeliveryJob, consumer: ConsumerRecord | undefined): Promise<DeliveryOutcome> {
    const at = () => this.clock.now();
    if (!consumer) return { state: 'dropped', at: at(), status: null, error: 'consumer deleted' };
    if (consumer.delivery.type === 'in_process') {
      const handler = this.handlers.get(consumer.id)?.[HANDLER[job.event_type]];
      // A consumer may ignore events it has no handler for: that counts as delivered.
      if (handler) await handler(JSON.parse(job.body));
      return { state: 'delivered', at: at(), status: null, error: null };
    }
    const headers = signedHeaders(consumer.secret!, job.event_id, new Date(at()), job.body);
    const result = await postWebhook(consumer.delivery.url, job.body, headers, { allowPrivate: this.options.allowPrivate, timeoutMs: this.options.timeoutMs });
    if (result.status >= 200 && result.status < 300) return { state: 'delivered', at: at(), status: result.status, error: null };
    if (result.status === 410) return { state: 'dead', at: at(), status: 410, error: 'endpoint answered 410 Gone: not retried' };
    const retryAfter = result.status === 429 || result.status === 503 ? parseRetryAfter(result.retryAfter, at()) : null;
    return this.failure(job, result.status, `endpoint answered ${result.status}`, retryAfter ?? undefined);
  }

  private failure(job: DeliveryJob, status: number | null, error: string, delayOverride: number | undefined): DeliveryOutcome {
    const now = this.clock.now();
    const delay = nextRetryDelay(job.attempts);
    if (delay === null) return { state: 'dead', at: now, status, error: `${error}; gave up after ${job.attempts} attempts` };
    return { state: 'pending', at: now, status, error, nextAttemptAt: now + (delayOverride ?? delay) };
  }

  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = new Promise<void>((resolve) =>
      setImmediate(() => {
        this.flush()
          .catch((error: unknown) => this.log.error({ err: error }, 'could not record delivery outcomes; they will be retried'))
          .finally(() => {
            this.flushing = null;
            resolve();
            if (this.finished.length > 0) this.scheduleFlush();
            this.kick();
          });
      }),
    );
  }

  /** Records a batch of outcomes and their audit rows in one transaction. */
  private async flush(): Promise<void> {
    const batch = this.finished.splice(0);
    if (batch.length === 0) return;
    await this.store.transaction(async (tx) => {
      for (const { job, outcome } of batch) {
        await tx.outbox.finishDelivery(job.id, outcome);
        await tx.requests.appendAudit(auditOf(job, outcome));
      }
    });
    for (const { job, outcome } of batch) {
      if (outcome.state === 'delivered') continue;
      const fields = { delivery_id: job.id, consumer_id: job.consumer_id, request_id: job.request_id, attempts: job.attempts, status: outcome.status, err: outcome.error };
      if (outcome.state === 'dead') this.log.error(fields, 'delivery is dead');
      else this.log.warn({ ...fields, next_attempt_at: outcome.nextAttemptAt }, 'delivery failed; will retry');
    }
  }
}

/** Standard Webhooks headers: `webhook-id` is the event id, stable across retries. */
export function signedHeaders(secret: string, eventId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(eventId, at, body),
  };
}

function auditOf(job: DeliveryJob, o: DeliveryOutcome): AuditEntry {
  const data = { delivery_id: job.id, consumer_id: job.consumer_id, event: job.event_type, event_id: job.event_id, attempts: job.attempts, status: o.status };
  if (o.state === 'delivered') return { request_id: job.request_id, at: o.at, type: 'delivered', actor: 'system', data };
  if (o.state === 'pending') {
    return { request_id: job.request_id, at: o.at, type: 'delivery_failed', actor: 'system', data: { ...data, error: o.error, next_attempt_at: new Date(o.nextAttemptAt!).toISOString() } };
  }
  return { request_id: job.request_id, at: o.at, type: 'delivery_dead', actor: 'system', data: { ...data, error: o.error } };
}
