import type Database from 'better-sqlite3';
import { bucketOf } from '../../core/insight-buckets.js';
import type { InsightCount, InsightCounts, InsightKey, InsightQuery, InsightRepository, InsightRollup, InsightTime } from '../insight-repository.js';
import { ADD_ASKED, ADD_ESCALATED, addSql, addSubmittedSql, addTimeSql, addToRequestSql, addValues, readSql, toRollup } from '../shared/insights-sql.js';
import { statementCache } from './rows.js';
import { mainThreadReads, type SlowReads } from './worker-reader.js';

/** The insight rollups in SQLite: each write one upsert; a read goes where it does not hold up the event loop (`slow`). */
export class SqliteInsights implements InsightRepository {
  private readonly prepare: (sql: string) => Database.Statement;
  private readonly reads: SlowReads;

  constructor(db: Database.Database, slow: SlowReads | null = null) {
    this.prepare = statementCache(db);
    this.reads = slow ?? mainThreadReads(db);
  }

  async add(key: InsightKey, experts: readonly string[], counts: Partial<InsightCounts>): Promise<void> {
    const columns = Object.keys(counts) as InsightCount[];
    if (columns.length === 0 || experts.length === 0) return;
    this.prepare(addSql(columns, experts.length)).run(...addValues(key, experts, columns, counts));
  }

  async addTime(key: InsightKey, experts: readonly string[], metric: InsightTime, seconds: number): Promise<void> {
    if (experts.length === 0) return;
    const bucket = bucketOf(seconds);
    this.prepare(addTimeSql(experts.length)).run(...experts.flatMap((e) => [key.hour, key.topic, e, key.consumer, metric, bucket]));
  }

  async addSubmitted(requestId: string, key: InsightKey, outcome: InsightCount | null): Promise<void> {
    this.prepare(addSubmittedSql(outcome)).run(key.hour, key.topic, key.consumer, requestId, requestId);
  }

  async addToRequest(requestId: string, key: InsightKey, counts: Partial<InsightCounts>): Promise<void> {
    const columns = Object.keys(counts) as InsightCount[];
    if (columns.length === 0) return;
    this.prepare(addToRequestSql(columns)).run(key.hour, key.topic, key.consumer, ...columns.map((c) => counts[c]), requestId);
  }

  async addEscalated(requestId: string, key: InsightKey): Promise<void> {
    this.prepare(ADD_ESCALATED).run(key.hour, key.topic, key.consumer, requestId, requestId);
  }

  async addAsked(requestId: string, askId: string, expertId: string, key: InsightKey): Promise<void> {
    this.prepare(ADD_ASKED).run(key.hour, key.topic, key.consumer, requestId, expertId, requestId, expertId, askId, requestId, askId);
  }

  async read(query: InsightQuery): Promise<InsightRollup> {
    const { counts, times, values } = readSql(query);
    const [c, t] = await Promise.all([this.reads.all(counts, values), this.reads.all(times, values)]);
    return toRollup(c, t);
  }
}
