import type { ConsumerRecord } from '../../domain/records.js';
import { json } from '../row-records.js';

/**
 * The statements of consumers, the same in both engines (`?` placeholders: `pgText`). Listing differs:
 * the order they registered in is SQLite's rowid and PostgreSQL's `seq`.
 */
export const CONSUMERS = {
  upsert: `INSERT INTO consumers (id, handles_kinds, delivery_type, delivery, secret, dedup_window,
        dedup_window_ms, auto_accept, kind_schemas, max_requests_per_day, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET handles_kinds = excluded.handles_kinds, delivery_type = excluded.delivery_type,
        delivery = excluded.delivery, secret = excluded.secret, dedup_window = excluded.dedup_window,
        dedup_window_ms = excluded.dedup_window_ms, auto_accept = excluded.auto_accept,
        kind_schemas = excluded.kind_schemas, max_requests_per_day = excluded.max_requests_per_day, updated_at = excluded.updated_at`,
  get: 'SELECT * FROM consumers WHERE id = ?',
  delete: 'DELETE FROM consumers WHERE id = ?',
} as const;

/** The values of `CONSUMERS.upsert`, in its order. */
export const consumerValues = (c: ConsumerRecord) => [
  c.id,
  json(c.handles_kinds),
  c.delivery.type,
  json(c.delivery),
  c.secret,
  c.dedup_window,
  c.dedup_window_ms,
  c.auto_accept ? 1 : 0,
  c.kind_schemas === null ? null : json(c.kind_schemas),
  c.max_requests_per_day,
  c.created_at,
  c.updated_at,
];
