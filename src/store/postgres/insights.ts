import { bucketOf } from '../../core/insight-buckets.js';
import type { InsightCount, InsightCounts, InsightKey, InsightQuery, InsightRepository, InsightRollup, InsightTime } from '../insight-repository.js';
import { pgText } from '../shared/placeholders.js';
import { ADD_ASKED, ADD_ESCALATED, addSql, addSubmittedSql, addTimeSql, addToRequestSql, addValues, readSql, toRollup } from '../shared/insights-sql.js';
import { all, type Db, write } from './sql.js';

/** The insight rollups in PostgreSQL: each write one upsert, sent without waiting for it inside a transaction. */
export class PgInsights implements InsightRepository {
  constructor(private readonly db: Db) {}

  async add(key: InsightKey, experts: readonly string[], counts: Partial<InsightCounts>): Promise<void> {
    const columns = Object.keys(counts) as InsightCount[];
    if (columns.length === 0 || experts.length === 0) return;
    await write(this.db, pgText(addSql(columns, experts.length)), addValues(key, experts, columns, counts));
  }

  async addTime(key: InsightKey, experts: readonly string[], metric: InsightTime, seconds: number): Promise<void> {
    if (experts.length === 0) return;
    const bucket = bucketOf(seconds);
    await write(this.db, pgText(addTimeSql(experts.length)), experts.flatMap((e) => [key.hour, key.topic, e, key.consumer, metric, bucket]));
  }

  async addSubmitted(requestId: string, key: InsightKey, outcome: InsightCount | null): Promise<void> {
    await write(this.db, pgText(addSubmittedSql(outcome)), [key.hour, key.topic, key.consumer, requestId, requestId]);
  }

  async addToRequest(requestId: string, key: InsightKey, counts: Partial<InsightCounts>): Promise<void> {
    const columns = Object.keys(counts) as InsightCount[];
    if (columns.length === 0) return;
    await write(this.db, pgText(addToRequestSql(columns)), [key.hour, key.topic, key.consumer, ...columns.map((c) => counts[c]), requestId]);
  }

  async addEscalated(requestId: string, key: InsightKey): Promise<void> {
    await write(this.db, pgText(ADD_ESCALATED), [key.hour, key.topic, key.consumer, requestId, requestId]);
  }

  async addAsked(requestId: string, askId: string, expertId: string, key: InsightKey): Promise<void> {
    await write(this.db, pgText(ADD_ASKED), [key.hour, key.topic, key.consumer, requestId, expertId, requestId, expertId, askId, requestId, askId]);
  }

  async read(query: InsightQuery): Promise<InsightRollup> {
    const { counts, times, values } = readSql(query);
    const [c, t] = await Promise.all([all(this.db, pgText(counts), values), all(this.db, pgText(times), values)]);
    return toRollup(c, t);
  }
}
