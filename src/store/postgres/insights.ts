import { periodStart } from '../../core/insight-periods.js';
import type { InsightQuery, InsightRepository, InsightRollup } from '../insight-repository.js';
import { InsightBuffer } from '../shared/insight-buffer.js';
import { flushStatements, JOURNAL } from '../shared/insight-flush-sql.js';
import { HOUR_PERIODS, HOUR_ROWS, PERIOD_ZONE_KEY, rebuildStatements } from '../shared/insight-rebuild-sql.js';
import { InsightWrites } from '../shared/insight-writes.js';
import { PeriodZone } from '../shared/period-zone.js';
import { pgText } from '../shared/placeholders.js';
import { SERVICE_STATE } from '../shared/small-sql.js';
import { all, one, type Db, write } from './sql.js';

const ZONE_SQL = pgText(SERVICE_STATE.get);
const APPEND = pgText(JOURNAL.append);
const TAKE = `${JOURNAL.take} FOR UPDATE SKIP LOCKED`;
/** Hour and time rows the day and week rows are rebuilt from per second: 59,000-63,000 measured at a million submissions on 2 cores. */
const REBUILD_ROWS_PER_SECOND = 60_000;

/** The insight rollups in PostgreSQL: counts gathered per transaction and sent, merged, before its commit (`flush`), without waiting for them. */
export class PgInsights extends InsightWrites implements InsightRepository {
  constructor(
    private readonly db: Db,
    private readonly zone = new PeriodZone(),
  ) {
    super((sql, values) => all(db, pgText(sql), values));
  }

  /** Appends what this transaction counted to the journal (called by the store just before it commits), without waiting for it. */
  async flush(): Promise<boolean> {
    const counts = this.buffer.journal();
    if (counts === null) return false;
    await write(this.db, APPEND, [counts]);
    return true;
  }

  /**
   * Folds the journal into the rollup rows, oldest first (inside the caller's transaction). Instances
   * folding at once take different journal rows: each skips the rows another holds.
   */
  async fold(): Promise<void> {
    const zone = await this.zoneNow();
    for (;;) {
      const rows = await all(this.db, TAKE);
      if (rows.length === 0) return;
      const folding = new InsightBuffer();
      for (const row of rows) folding.addJournal(String(row.counts));
      for (const { sql, values } of flushStatements(folding.take(zone))) await write(this.db, pgText(sql), values);
      await write(this.db, 'DELETE FROM insight_journal WHERE id = ANY($1::bigint[])', [rows.map((r) => String(r.id))]);
    }
  }

  /**
   * Keeps the day and week rows in `zone` from now on, rebuilding them from the hours if they were kept
   * in another (inside the caller's transaction). Instances starting together rebuild one at a time:
   * the second finds the zone kept already.
   */
  async keepIn(zone: string, onRebuild?: (hourRows: number, estimatedMs: number) => void): Promise<boolean> {
    await this.db.query('LOCK TABLE insight_periods IN EXCLUSIVE MODE');
    const was = (await one(this.db, ZONE_SQL, [PERIOD_ZONE_KEY]))?.value;
    await this.fold();
    if (was === zone) {
      this.zone.set(zone);
      return false;
    }
    const hourRows = Number((await one(this.db, HOUR_ROWS))?.n ?? 0);
    onRebuild?.(hourRows, (hourRows / REBUILD_ROWS_PER_SECOND) * 1000);
    await this.db.query(`CREATE TEMP TABLE ${HOUR_PERIODS} (hour BIGINT PRIMARY KEY, day BIGINT NOT NULL, week BIGINT NOT NULL) ON COMMIT DROP`);
    const hours = (await all(this.db, 'SELECT DISTINCT hour FROM insight_hours')).map((r) => Number(r.hour));
    await this.db.query(`INSERT INTO ${HOUR_PERIODS} (hour, day, week) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])`, [
      hours,
      hours.map((h) => periodStart(h, zone, 'day')),
      hours.map((h) => periodStart(h, zone, 'week')),
    ]);
    for (const sql of rebuildStatements()) await this.db.query(sql);
    await this.db.query(pgText(SERVICE_STATE.set), [PERIOD_ZONE_KEY, zone]);
    this.zone.set(zone);
    return true;
  }

  /**
   * Outside a transaction, both statements run with parallel plans off (`readSerially`): each reads a
   * few thousand rows by key, but the planner's estimate of them is large enough to start two workers
   * (at a million submissions: both statements 8 ms serially, 14 ms with workers), on the cores other
   * requests are waiting for.
   */
  async read(query: InsightQuery): Promise<InsightRollup> {
    const zone = await this.zoneNow();
    const read = (db: Db) => this.readIn(query, zone, (sql, values) => all(db, pgText(sql), values));
    return this.db.readSerially ? this.db.readSerially(read) : read(this.db);
  }

  private zoneNow(): Promise<string | null> {
    return this.zone.get(async () => (await one(this.db, ZONE_SQL, [PERIOD_ZONE_KEY]))?.value as string | undefined);
  }
}
