import type Database from 'better-sqlite3';
import type { MetricCounts, MetricReads } from '../store.js';
import type { Row } from './rows.js';

function prepare(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    requestsByStatus: p('SELECT status, COUNT(*) AS n FROM requests GROUP BY status'),
    messageBacklog: p(`SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM messages WHERE state = 'pending'`),
    deliveryBacklog: p(`SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM deliveries WHERE state = 'pending'`),
    deadDeliveries: p(`SELECT COUNT(*) AS n FROM deliveries WHERE state = 'dead'`),
    pendingProposals: p(`SELECT COUNT(*) AS n FROM proposals WHERE status = 'pending'`),
  };
}

/** The row counts `/metrics` reports, in SQLite. */
export class SqliteMetrics implements MetricReads {
  private readonly stmts: ReturnType<typeof prepare>;

  constructor(db: Database.Database) {
    this.stmts = prepare(db);
  }

  async counts(): Promise<MetricCounts> {
    const messages = this.stmts.messageBacklog.get() as { n: number; oldest: number | null };
    const deliveries = this.stmts.deliveryBacklog.get() as { n: number; oldest: number | null };
    return {
      requestsByStatus: Object.fromEntries((this.stmts.requestsByStatus.all() as Row[]).map((r) => [r.status as string, r.n as number])),
      pendingMessages: messages.n,
      oldestPendingMessageAt: messages.oldest,
      pendingDeliveries: deliveries.n,
      oldestPendingDeliveryAt: deliveries.oldest,
      deadDeliveries: (this.stmts.deadDeliveries.get() as { n: number }).n,
      pendingProposals: (this.stmts.pendingProposals.get() as { n: number }).n,
    };
  }
}
