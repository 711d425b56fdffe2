import { bucketOf } from '../../core/insight-buckets.js';
import { windowTiers } from '../../core/insight-periods.js';
import type { InsightCounts, InsightKey, InsightQuery, InsightRollup, InsightTime } from '../insight-repository.js';
import { readSql, toRollup } from './insights-sql.js';
import type { Row } from '../row-records.js';
import { InsightBuffer } from './insight-buffer.js';

/** Experts sent an ask on a request, but for one ask (`?` twice: request id, then an ask id or ''). */
const ASKED = 'SELECT DISTINCT expert_id AS expert FROM asks WHERE request_id = ? AND sent_at IS NOT NULL AND id <> ?';
const ESCALATED_BEFORE = "SELECT 1 AS yes FROM audit WHERE request_id = ? AND type = 'escalated' LIMIT 1";
const ALL = '';

/**
 * The writes of the insight rollups, the same on both engines: counts go to the transaction's buffer
 * (`InsightBuffer`), written merged before the commit; a count that depends on a request's asks or
 * trail reads them first, in the transaction. `rows` runs one read in it.
 */
export class InsightWrites {
  readonly buffer = new InsightBuffer();

  constructor(private readonly rows: (sql: string, values: unknown[]) => Promise<Row[]>) {}

  async add(key: InsightKey, experts: readonly string[], counts: Partial<InsightCounts>): Promise<void> {
    this.buffer.add(key, experts, counts);
  }

  async addTime(key: InsightKey, experts: readonly string[], metric: InsightTime, seconds: number): Promise<void> {
    this.buffer.addTime(key, experts, { metric, bucket: bucketOf(seconds) });
  }

  async addToRequest(requestId: string, key: InsightKey, counts: Partial<InsightCounts>): Promise<void> {
    this.buffer.add(key, [ALL, ...(await this.asked(requestId, ''))], counts);
  }

  async addEscalated(requestId: string, key: InsightKey): Promise<void> {
    if ((await this.rows(ESCALATED_BEFORE, [requestId])).length > 0) return;
    this.buffer.add(key, [ALL, ...(await this.asked(requestId, ''))], { escalated_requests: 1 });
  }

  async addAsked(requestId: string, askId: string, expertId: string, key: InsightKey): Promise<void> {
    const before = await this.asked(requestId, askId);
    if (!before.includes(expertId)) {
      const escalated = (await this.rows(ESCALATED_BEFORE, [requestId])).length > 0 ? 1 : 0;
      this.buffer.add(key, [expertId], { requests: 1, asked_requests: 1, escalated_requests: escalated });
    }
    if (before.length === 0) this.buffer.add(key, [ALL], { asked_requests: 1 });
  }

  private async asked(requestId: string, exceptAsk: string): Promise<string[]> {
    return (await this.rows(ASKED, [requestId, exceptAsk])).map((r) => String(r.expert));
  }

  /**
   * A query's sums, read with `all`; the window's whole weeks and days from their rows when they are
   * kept in the query's zone (`zone`: the one they are kept in, if any) and the query's groups are no
   * shorter (per day: no week rows; per period of no named unit: hours only).
   */
  protected async readIn(query: InsightQuery, zone: string | null, all: (sql: string, values: unknown[]) => Promise<Row[]>): Promise<InsightRollup> {
    const coarsest = query.by === 'period' ? query.periodUnit : 'week';
    const tiers = query.zone !== undefined && query.zone === zone && coarsest !== undefined ? windowTiers(query.from, query.to, zone, coarsest) : null;
    const { counts, times, countValues, timeValues } = readSql(query, tiers);
    const [c, t] = await Promise.all([all(counts, countValues), all(times, timeValues)]);
    return toRollup(c, t);
  }
}
