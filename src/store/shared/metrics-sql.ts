import type { MetricCounts } from '../store.js';

/** The statements `/metrics` reads, the same in both engines. */
export const REQUESTS_BY_STATUS = 'SELECT status, COUNT(*) AS n FROM requests GROUP BY status';

/** The outbox and proposal counts in one statement: one snapshot, one trip to the database. */
export const COUNTS = `SELECT
  (SELECT COUNT(*) FROM messages WHERE state = 'pending') AS pending_messages,
  (SELECT MIN(created_at) FROM messages WHERE state = 'pending') AS oldest_message,
  (SELECT COUNT(*) FROM deliveries WHERE state = 'pending') AS pending_deliveries,
  (SELECT MIN(created_at) FROM deliveries WHERE state = 'pending') AS oldest_delivery,
  (SELECT COUNT(*) FROM deliveries WHERE state = 'dead') AS dead_deliveries,
  (SELECT COUNT(*) FROM proposals WHERE status = 'pending') AS pending_proposals`;

type Cell = unknown;

export function byStatus(rows: ReadonlyArray<Record<string, Cell>>): Record<string, number> {
  return Object.fromEntries(rows.map((r) => [r.status as string, r.n as number]));
}

export function toMetricCounts(c: Record<string, Cell>): MetricCounts {
  return {
    pendingMessages: c.pending_messages as number,
    oldestPendingMessageAt: c.oldest_message as number | null,
    pendingDeliveries: c.pending_deliveries as number,
    oldestPendingDeliveryAt: c.oldest_delivery as number | null,
    deadDeliveries: c.dead_deliveries as number,
    pendingProposals: c.pending_proposals as number,
  };
}
