import type { MetricCounts, MetricReads } from '../store.js';
import { byStatus, COUNTS, REQUESTS_BY_STATUS, toMetricCounts } from '../shared/metrics-sql.js';
import { all, type Db, one } from './sql.js';

/** The row counts `/metrics` reports, in PostgreSQL. */
export class PgMetrics implements MetricReads {
  constructor(private readonly db: Db) {}

  async requestsByStatus(): Promise<Record<string, number>> {
    return byStatus(await all(this.db, REQUESTS_BY_STATUS));
  }

  async counts(): Promise<MetricCounts> {
    return toMetricCounts((await one(this.db, COUNTS))!);
  }
}
