import type Database from 'better-sqlite3';
import type { DeliveryJob, DeliveryRecord, EventRecord } from '../../domain/records.js';
import type { DeliveryClaim, DeliveryOutcome, DeliveryQuery } from '../store.js';
import { json, type Row, statementCache, whereClause, prepareAll } from './rows.js';
import { renewLeases, SQLITE_IN_JSON } from '../shared/leases-sql.js';
import { claimedJobs, DELIVERIES, DELIVERY_COLUMNS, deliveryValues, EVENT_TYPE, eventValues, toEvent } from '../shared/deliveries-sql.js';

function prepare(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    ...prepareAll(db, DELIVERIES),
    // Each consumer contributes at most its first `perConsumer` due, unleased rows (an index seek per
    // consumer), ranked to leave room for what it already has in flight; the earliest of those win.
    claim: p(`UPDATE deliveries SET claimed_by = @owner, lease_until = @leaseUntil, attempts = attempts + 1 WHERE id IN (
          SELECT due.id FROM (
            SELECT d.id, d.next_attempt_at, d.consumer_id,
              ROW_NUMBER() OVER (PARTITION BY d.consumer_id ORDER BY d.next_attempt_at, d.id) AS nth
            FROM consumers c JOIN deliveries d ON d.id IN (
              SELECT p.id FROM deliveries p INDEXED BY deliveries_pending_consumer
              WHERE p.consumer_id = c.id AND p.state = 'pending' AND p.next_attempt_at <= @now
                AND (p.lease_until IS NULL OR p.lease_until <= @now)
              ORDER BY p.next_attempt_at, p.id LIMIT @perConsumer)
            WHERE c.delivery_type = 'webhook' OR c.id IN (SELECT value FROM json_each(@live))
          ) AS due LEFT JOIN json_each(@inFlight) AS busy ON busy.key = due.consumer_id
          WHERE due.nth <= @perConsumer - COALESCE(busy.value, 0) ORDER BY due.next_attempt_at, due.id LIMIT @limit)
        RETURNING ${DELIVERY_COLUMNS}`),
    eventBodies: p(`SELECT id, type, body FROM events WHERE id IN (SELECT value FROM json_each(?))`),
    finish: p(`UPDATE deliveries SET state = @state, claimed_by = NULL, lease_until = NULL, last_status = @status,
        last_error = @error, next_attempt_at = COALESCE(@nextAttemptAt, next_attempt_at),
        delivered_at = CASE WHEN @state = 'delivered' THEN @at ELSE delivered_at END WHERE id = @id`),
    pendingFor: p(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE consumer_id = ? AND state = 'pending'`),
    dropPending: p(`UPDATE deliveries SET state = 'dropped', lease_until = NULL, last_error = 'consumer deleted'
        WHERE consumer_id = ? AND state = 'pending'`),
    renew: p(renewLeases('deliveries', SQLITE_IN_JSON)),
  };
}

/** The outbox of events and their deliveries to consumers, leased to whoever delivers them (half of `SqliteOutbox`). */
export class SqliteDeliveries {
  private readonly stmts: ReturnType<typeof prepare>;
  private readonly prepareCached: (sql: string) => Database.Statement;

  constructor(db: Database.Database) {
    this.stmts = prepare(db);
    this.prepareCached = statementCache(db);
  }

  insertEvent(e: EventRecord): void {
    this.stmts.insertEvent.run(...eventValues(e));
  }

  events(requestId: string): EventRecord[] {
    return (this.stmts.events.all(requestId) as Row[]).map(toEvent);
  }

  insert(d: DeliveryRecord): void {
    this.stmts.insert.run(...deliveryValues(d));
  }

  get(id: string): DeliveryRecord | undefined {
    return this.stmts.get.get(id) as DeliveryRecord | undefined;
  }

  list(q: DeliveryQuery): DeliveryRecord[] {
    const { where, values } = whereClause([
      ['consumer_id = ?', q.consumer_id],
      ['state = ?', q.state],
      ['id < ?', q.before],
    ]);
    const sql = `SELECT ${DELIVERY_COLUMNS}, ${EVENT_TYPE}
      FROM deliveries ${where} ORDER BY id DESC LIMIT ?`;
    return this.prepareCached(sql).all(...values, q.limit) as DeliveryRecord[];
  }

  anyDue(now: number): boolean {
    return (this.stmts.anyDue.get(now) as { due: number }).due === 1;
  }

  claim(c: DeliveryClaim): DeliveryJob[] {
    // The dispatcher is woken after every commit; most find nothing due. A read on the partial index
    // answers that without the write the claim UPDATE would start.
    if (!this.anyDue(c.now)) return [];
    const claimed = this.stmts.claim.all({
      now: c.now,
      owner: c.owner,
      leaseUntil: c.leaseUntil,
      limit: c.limit,
      perConsumer: c.perConsumer,
      inFlight: json(c.inFlight),
      live: json(c.live),
    }) as DeliveryRecord[];
    if (claimed.length === 0) return [];
    const events = new Map(
      (this.stmts.eventBodies.all(json([...new Set(claimed.map((d) => d.event_id))])) as Row[]).map((r) => [r.id as string, r]),
    );
    return claimedJobs(claimed, events);
  }

  finish(id: string, o: DeliveryOutcome): void {
    this.stmts.finish.run({ id, state: o.state, at: o.at, status: o.status, error: o.error, nextAttemptAt: o.nextAttemptAt ?? null });
  }

  dropPending(consumerId: string): DeliveryRecord[] {
    const pending = this.stmts.pendingFor.all(consumerId) as DeliveryRecord[];
    this.stmts.dropPending.run(consumerId);
    return pending;
  }

  retry(id: string, now: number): void {
    this.stmts.retry.run(now, id);
  }

  renewLeases(ids: readonly string[], owner: string, leaseUntil: number): number {
    return this.stmts.renew.run(leaseUntil, json(ids), owner).changes;
  }
}
