import type { DeliveryJob, DeliveryRecord, EventRecord } from '../../domain/records.js';
import { json, type Row } from '../row-records.js';

/**
 * The statements of events and deliveries the same in both engines (`?` placeholders: `pgText`).
 * Claiming, finishing, dropping and renewing differ: SQLite ranks a consumer's due rows with a window
 * function, PostgreSQL locks them as it picks them (SKIP LOCKED), and each passes lists its own way.
 */
export const DELIVERY_COLUMNS = `id, event_id, consumer_id, request_id, state, attempts, next_attempt_at, last_status, last_error,
  created_at, delivered_at`;
export const EVENT_TYPE = '(SELECT type FROM events WHERE events.id = deliveries.event_id) AS event';

export const DELIVERIES = {
  insertEvent: 'INSERT INTO events (id, request_id, type, body, created_at) VALUES (?, ?, ?, ?, ?)',
  events: 'SELECT id, request_id, type, body, created_at FROM events WHERE request_id = ? ORDER BY created_at, id',
  insert: `INSERT INTO deliveries (${DELIVERY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  // With its event's type, as a listed delivery has it: one view of a delivery wherever it is read.
  get: `SELECT ${DELIVERY_COLUMNS}, ${EVENT_TYPE} FROM deliveries WHERE id = ?`,
  anyDue: `SELECT EXISTS (SELECT 1 FROM deliveries WHERE state = 'pending' AND next_attempt_at <= ?) AS due`,
  retry: `UPDATE deliveries SET state = 'pending', next_attempt_at = ?, lease_until = NULL WHERE id = ?`,
} as const;

/** The values of `DELIVERIES.insertEvent` and `insert`, in their order. */
export const eventValues = (e: EventRecord) => [e.id, e.request_id, e.type, json(e.body), e.created_at];
export const deliveryValues = (d: DeliveryRecord) => [
  d.id,
  d.event_id,
  d.consumer_id,
  d.request_id,
  d.state,
  d.attempts,
  d.next_attempt_at,
  d.last_status,
  d.last_error,
  d.created_at,
  d.delivered_at,
];

export const toEvent = (r: Row) => ({ ...r, body: JSON.parse(r.body as string) }) as EventRecord;

/** The claimed deliveries, earliest due first, each with its event's type and body (`events`: by id). */
export function claimedJobs(claimed: DeliveryRecord[], events: ReadonlyMap<string, Row>): DeliveryJob[] {
  return claimed
    .sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.id < b.id ? -1 : 1))
    .map((d) => ({ ...d, event_type: events.get(d.event_id)!.type as DeliveryJob['event_type'], body: events.get(d.event_id)!.body as string }));
}
