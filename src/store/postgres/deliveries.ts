import type { DeliveryJob, DeliveryRecord, EventRecord } from '../../domain/records.js';
import { json, type Row } from '../row-records.js';
import type { DeliveryClaim, DeliveryOutcome, DeliveryQuery } from '../store.js';
import { all, type Db, one, run, whereClause, write } from './sql.js';

const DELIVERY_COLUMNS = `id, event_id, consumer_id, request_id, state, attempts, next_attempt_at, last_status, last_error,
  created_at, delivered_at`;
const EVENT_TYPE = '(SELECT type FROM events WHERE events.id = deliveries.event_id) AS event';

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
    await write(this.db, 'INSERT INTO events (id, request_id, type, body, created_at) VALUES ($1, $2, $3, $4, $5)', [
      e.id, e.request_id, e.type, json(e.body), e.created_at,
    ]);
  }

  async events(requestId: string): Promise<EventRecord[]> {
    const rows = await all(this.db, 'SELECT id, request_id, type, body, created_at FROM events WHERE request_id = $1 ORDER BY created_at, id', [
      requestId,
    ]);
    return rows.map((r) => ({ ...r, body: JSON.parse(r.body as string) }) as EventRecord);
  }

  async insert(d: DeliveryRecord): Promise<void> {
    await write(
      this.db,
      `INSERT INTO deliveries (${DELIVERY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [d.id, d.event_id, d.consumer_id, d.request_id, d.state, d.attempts, d.next_attempt_at, d.last_status, d.last_error,
        d.created_at, d.delivered_at],
    );
  }

  async get(id: string): Promise<DeliveryRecord | undefined> {
    // With its event's type, as a listed delivery has it: one view of a delivery wherever it is read.
    return (await one(this.db, `SELECT ${DELIVERY_COLUMNS}, ${EVENT_TYPE} FROM deliveries WHERE id = $1`, [id])) as DeliveryRecord | undefined;
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
    const row = await one(this.db, `SELECT EXISTS (SELECT 1 FROM deliveries WHERE state = 'pending' AND next_attempt_at <= $1) AS due`, [now]);
    return row?.due === true;
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
    return claimed
      .sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.id < b.id ? -1 : 1))
      .map((d) => ({ ...d, event_type: events.get(d.event_id)!.type as DeliveryJob['event_type'], body: events.get(d.event_id)!.body as string }));
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
    await write(this.db, `UPDATE deliveries SET state = 'pending', next_attempt_at = $1, lease_until = NULL WHERE id = $2`, [now, id]);
  }

  async renewLeases(ids: readonly string[], owner: string, leaseUntil: number): Promise<number> {
    return run(
      this.db,
      `UPDATE deliveries SET lease_until = $1 WHERE id = ANY($2::text[]) AND state = 'pending' AND claimed_by = $3`,
      [leaseUntil, [...ids], owner],
    );
  }
}
