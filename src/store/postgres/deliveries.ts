import type { DeliveryJob, DeliveryRecord, EventRecord } from '../../domain/records.js';
import { json, type Row } from '../row-records.js';
import { pgStatements, pgText } from '../shared/placeholders.js';
import { renewLeases } from '../shared/leases-sql.js';
import { claimedJobs, DELIVERIES, DELIVERY_COLUMNS, deliveryValues, EVENT_TYPE, eventValues, toEvent } from '../shared/deliveries-sql.js';
import type { DeliveryClaim, DeliveryOutcome, DeliveryQuery } from '../store.js';
import { all, type Db, one, PG_IN_ARRAY, run, whereClause, write } from './sql.js';

const SQL = pgStatements(DELIVERIES);

/**
 * Each consumer served here (webhooks, and in-process ones live in this process) contributes its first
 * due, unleased rows (an index seek per consumer on `deliveries_pending_consumer`), as many as
 * `perConsumer` leaves room for beside what it already has in flight; the earliest of those win. The
 * rows are locked (SKIP LOCKED) as each consumer's are picked: PostgreSQL refuses row locks beside the
 * window function SQLite ranks them with, and a LIMIT per consumer chooses the same rows.
 */
const CLAIM = `WITH chosen AS (
    SELECT due.id FROM consumers c CROSS JOIN LATERAL (
      SELECT p.id, p.next_attempt_at FROM deliveries p
      WHERE p.consumer_id = c.id AND p.state = 'pending' AND p.next_attempt_at <= $1
        AND (p.lease_until IS NULL OR p.lease_until <= $1)
      ORDER BY p.next_attempt_at, p.id
      LIMIT GREATEST($5::integer - COALESCE(($6::jsonb ->> c.id)::integer, 0), 0)
      FOR UPDATE SKIP LOCKED) AS due
    WHERE c.delivery_type = 'webhook' OR c.id = ANY($7::text[])
    ORDER BY due.next_attempt_at, due.id LIMIT $4)
  UPDATE deliveries SET claimed_by = $2, lease_until = $3, attempts = attempts + 1 WHERE id IN (SELECT id FROM chosen)
  RETURNING ${DELIVERY_COLUMNS}`;

/** The outbox of events and their deliveries to consumers, leased to whoever delivers them (half of `PgOutbox`). */
export class PgDeliveries {
  constructor(private readonly db: Db) {}

  async insertEvent(e: EventRecord): Promise<void> {
    await write(this.db, SQL.insertEvent, eventValues(e));
  }

  async events(requestId: string): Promise<EventRecord[]> {
    return (await all(this.db, SQL.events, [requestId])).map(toEvent);
  }

  async insert(d: DeliveryRecord): Promise<void> {
    await write(this.db, SQL.insert, deliveryValues(d));
  }

  async get(id: string): Promise<DeliveryRecord | undefined> {
    return (await one(this.db, SQL.get, [id])) as DeliveryRecord | undefined;
  }

  async list(q: DeliveryQuery): Promise<DeliveryRecord[]> {
    const { where, values } = whereClause([
      ['consumer_id = $?', q.consumer_id],
      ['state = $?', q.state],
      ['id < $?', q.before],
    ]);
    const sql = `SELECT ${DELIVERY_COLUMNS}, ${EVENT_TYPE}
      FROM deliveries ${where} ORDER BY id DESC LIMIT $${values.length + 1}`;
    return (await all(this.db, sql, [...values, q.limit])) as unknown as DeliveryRecord[];
  }

  async anyDue(now: number): Promise<boolean> {
    return (await one(this.db, SQL.anyDue, [now]))?.due === true;
  }

  async claim(c: DeliveryClaim): Promise<DeliveryJob[]> {
    // The dispatcher is woken after every commit; most find nothing due. A read on the partial index
    // answers that without the write the claim UPDATE would start.
    if (!(await this.anyDue(c.now))) return [];
    const claimed = (await all(this.db, CLAIM, [
      c.now, c.owner, c.leaseUntil, c.limit, c.perConsumer, json(c.inFlight), [...c.live],
    ])) as unknown as DeliveryRecord[];
    if (claimed.length === 0) return [];
    const events = new Map(
      (await all(this.db, 'SELECT id, type, body FROM events WHERE id = ANY($1::text[])', [[...new Set(claimed.map((d) => d.event_id))]]))
        .map((r: Row) => [r.id as string, r]),
    );
    return claimedJobs(claimed, events);
  }

  async finish(id: string, o: DeliveryOutcome): Promise<void> {
    await write(
      this.db,
      `UPDATE deliveries SET state = $2, claimed_by = NULL, lease_until = NULL, last_status = $4, last_error = $5,
        next_attempt_at = COALESCE($6::bigint, next_attempt_at),
        delivered_at = CASE WHEN $2::text = 'delivered' THEN $3::bigint ELSE delivered_at END WHERE id = $1`,
      [id, o.state, o.at, o.status, o.error, o.nextAttemptAt ?? null],
    );
  }

  async dropPending(consumerId: string): Promise<DeliveryRecord[]> {
    // One statement, rows locked as read: what it returns (as it was before) is exactly what it dropped.
    const rows = await all(
      this.db,
      `WITH was AS (SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE consumer_id = $1 AND state = 'pending' FOR UPDATE)
        UPDATE deliveries d SET state = 'dropped', lease_until = NULL, last_error = 'consumer deleted' FROM was WHERE d.id = was.id
        RETURNING ${DELIVERY_COLUMNS.replace(/(\w+)/g, 'was.$1')}`,
      [consumerId],
    );
    return rows as unknown as DeliveryRecord[];
  }

  async retry(id: string, now: number): Promise<void> {
    await write(this.db, SQL.retry, [now, id]);
  }

  async renewLeases(ids: readonly string[], owner: string, leaseUntil: number): Promise<number> {
    return run(this.db, pgText(renewLeases('deliveries', PG_IN_ARRAY)), [leaseUntil, [...ids], owner]);
  }
}
