import type { MetricCounts, MetricReads } from '../store.js';
import { all, type Db, one } from './sql.js';

/** The outbox and proposal counts in one statement: one snapshot, one round trip. */
const COUNTS = `SELECT
  (SELECT COUNT(*) FROM messages WHERE state = 'pending') AS pending_messages,
  (SELECT MIN(created_at) FROM messages WHERE state = 'pending') AS oldest_message,
  (SELECT COUNT(*) FROM deliveries WHERE state = 'pending') AS pending_deliveries,
  (SELECT MIN(created_at) FROM deliveries WHERE state = 'pending') AS oldest_delivery,
  (SELECT COUNT(*) FROM deliveries WHERE state = 'dead') AS dead_deliveries,
  (SELECT COUNT(*) FROM proposals WHERE status = 'pending') AS pending_proposals`;

/** The row counts `/metrics` reports, in PostgreSQL. */
export class PgMetrics implements MetricReads {
  constructor(private readonly db: Db) {}

  async requestsByStatus(): Promise<Record<string, number>> {
    const byStatus = await all(this.db, 'SELECT status, COUNT(*) AS n FROM requests GROUP BY status');
    return Object.fromEntries(byStatus.map((r) => [r.status as string, r.n as number]));
  }

  async counts(): Promise<MetricCounts> {
    const c = (await one(this.db, COUNTS))!;
    return {
      pendingMessages: c.pending_messages as number,
      oldestPendingMessageAt: c.oldest_message as number | null,
      pendingDeliveries: c.pending_deliveries as number,
      oldestPendingDeliveryAt: c.oldest_delivery as number | null,
      deadDeliveries: c.dead_deliveries as number,
      pendingProposals: c.pending_proposals as number,
    };
  }
}
