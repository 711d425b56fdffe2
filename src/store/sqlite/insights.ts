import type Database from 'better-sqlite3';
import { periodStart } from '../../core/insight-periods.js';
import type { InsightQuery, InsightRepository, InsightRollup } from '../insight-repository.js';
import { InsightBuffer } from '../shared/insight-buffer.js';
import { flushStatements, JOURNAL } from '../shared/insight-flush-sql.js';
import { HOUR_PERIODS, HOUR_ROWS, PERIOD_ZONE_KEY, rebuildStatements } from '../shared/insight-rebuild-sql.js';
import { InsightWrites } from '../shared/insight-writes.js';
import { SERVICE_STATE } from '../shared/small-sql.js';
import { PeriodZone } from '../shared/period-zone.js';
import type { Row } from '../row-records.js';
import { statementCache } from './rows.js';
import { mainThreadReads, type SlowReads } from './worker-reader.js';

/** Hour and time rows the day and week rows are rebuilt from per second: 210,000-290,000 measured on 2 cores (100,000 and a million submissions). */
const REBUILD_ROWS_PER_SECOND = 220_000;


/** The insight rollups in SQLite: counts gathered per transaction and written before its commit (`flush`); a read goes where it does not hold up the event loop (`slow`). */
export class SqliteInsights extends InsightWrites implements InsightRepository {
  private readonly prepare: (sql: string) => Database.Statement;
  private readonly reads: SlowReads;
  /** Whether this connection appended to the journal since it last folded it. */
  unfolded = true;

  constructor(db: Database.Database, slow: SlowReads | null = null, private readonly zone = new PeriodZone()) {
    const prepare = statementCache(db);
    super(async (sql, values) => prepare(sql).all(...values) as Row[]);
    this.prepare = prepare;
    this.reads = slow ?? mainThreadReads(db);
  }

  /** Appends what this transaction counted to the journal (called by the store just before it commits). */
  async flush(): Promise<void> {
    const counts = this.buffer.journal();
    if (counts === null) return;
    this.prepare(JOURNAL.append).run(counts);
    this.unfolded = true;
  }

  /** Folds the journal into the rollup rows, oldest first (inside the caller's transaction). */
  async fold(): Promise<void> {
    const zone = await this.zoneNow();
    for (;;) {
      const rows = this.prepare(JOURNAL.take).all() as Array<{ id: number; counts: string }>;
      if (rows.length === 0) break;
      const folding = new InsightBuffer();
      for (const row of rows) folding.addJournal(row.counts);
      for (const { sql, values } of flushStatements(folding.take(zone))) this.prepare(sql).run(...values);
      // One writer: nothing older than the last id read can appear meanwhile.
      this.prepare('DELETE FROM insight_journal WHERE id <= ?').run(rows[rows.length - 1]!.id);
    }
    this.unfolded = false;
  }

  /** Keeps the day and week rows in `zone` from now on, rebuilding them from the hours if they were kept in another (inside the caller's transaction). */
  async keepIn(zone: string, onRebuild?: (hourRows: number, estimatedMs: number) => void): Promise<boolean> {
    const was = (this.prepare(SERVICE_STATE.get).get(PERIOD_ZONE_KEY) as { value: string } | undefined)?.value;
    await this.fold();
    if (was === zone) {
      this.zone.set(zone);
      return false;
    }
    const hourRows = (this.prepare(HOUR_ROWS).get() as { n: number }).n;
    onRebuild?.(hourRows, (hourRows / REBUILD_ROWS_PER_SECOND) * 1000);
    this.prepare(`CREATE TEMP TABLE IF NOT EXISTS ${HOUR_PERIODS} (hour INTEGER PRIMARY KEY, day INTEGER NOT NULL, week INTEGER NOT NULL)`).run();
    this.prepare(`DELETE FROM ${HOUR_PERIODS}`).run();
    const insert = this.prepare(`INSERT INTO ${HOUR_PERIODS} (hour, day, week) VALUES (?, ?, ?)`);
    for (const { hour } of this.prepare('SELECT DISTINCT hour FROM insight_hours').all() as Array<{ hour: number }>) {
      insert.run(hour, periodStart(hour, zone, 'day'), periodStart(hour, zone, 'week'));
    }
    for (const sql of rebuildStatements()) this.prepare(sql).run();
    this.prepare(`DELETE FROM ${HOUR_PERIODS}`).run();
    this.prepare(SERVICE_STATE.set).run(PERIOD_ZONE_KEY, zone);
    this.zone.set(zone);
    return true;
  }

  async read(query: InsightQuery): Promise<InsightRollup> {
    return this.readIn(query, await this.zoneNow(), (sql, values) => this.reads.all(sql, values));
  }

  private zoneNow(): Promise<string | null> {
    return this.zone.get(async () => (this.prepare(SERVICE_STATE.get).get(PERIOD_ZONE_KEY) as { value: string } | undefined)?.value);
  }
}
