import type Database from 'better-sqlite3';
import type { MetricCounts, MetricReads } from '../store.js';
import type { Row } from './rows.js';
import { mainThreadReads, type SlowReads } from './worker-reader.js';

const REQUESTS_BY_STATUS = 'SELECT status, COUNT(*) AS n FROM requests GROUP BY status';
/** The outbox and proposal counts in one statement: one snapshot, one trip to the reading thread. */
const COUNTS = `SELECT
  (SELECT COUNT(*) FROM messages WHERE state = 'pending') AS pending_messages,
  (SELECT MIN(created_at) FROM messages WHERE state = 'pending') AS oldest_message,
  (SELECT COUNT(*) FROM deliveries WHERE state = 'pending') AS pending_deliveries,
  (SELECT MIN(created_at) FROM deliveries WHERE state = 'pending') AS oldest_delivery,
  (SELECT COUNT(*) FROM deliveries WHERE state = 'dead') AS dead_deliveries,
  (SELECT COUNT(*) FROM proposals WHERE status = 'pending') AS pending_proposals`;

/**
 * The row counts `/metrics` reports, in SQLite: on the reading thread when there is one (the count of
 * requests by status reads an index entry per request kept, about 50 ms at a million requests).
 */
export class SqliteMetrics implements MetricReads {
  private readonly reads: SlowReads;

  constructor(db: Database.Database, slow: SlowReads | null = null) {
    this.reads = slow ?? mainThreadReads(db);
  }

  async requestsByStatus(): Promise<Record<string, number>> {
    return Object.fromEntries((await this.reads.all(REQUESTS_BY_STATUS)).map((r: Row) => [r.status as string, r.n as number]));
  }

  async counts(): Promise<MetricCounts> {
    const c = (await this.reads.get(COUNTS))!;
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
