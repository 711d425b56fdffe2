import { INSIGHT_COUNTS } from '../insight-repository.js';

/**
 * Rebuilding the rows kept per day and week from the hour rows, for a time zone the rollups were not
 * kept in (a new database, or a changed `org.timezone`): the hours' days and weeks, computed by
 * expertq, go into a temporary table; each kind of row is then one INSERT … SELECT.
 */

/** The key under `serviceState` naming the time zone the day and week rows are kept in. */
export const PERIOD_ZONE_KEY = 'insights.period_zone';
export const HOUR_PERIODS = 'insight_hour_periods';
/** The hour rows a rebuild reads (of counts and of times). */
export const HOUR_ROWS = 'SELECT (SELECT COUNT(*) FROM insight_hours) + (SELECT COUNT(*) FROM insight_times) AS n';

const sums = (alias: string) => INSIGHT_COUNTS.map((c) => `SUM(${alias}.${c})`).join(', ');
const COLUMNS = INSIGHT_COUNTS.join(', ');
/** The day rows read from the hours: every other kind is summed from day rows, far fewer. */
const FROM_HOURS = [
  { dim: 'topic', value: 'h.topic', where: "h.expert = ''" },
  { dim: 'consumer', value: 'h.consumer', where: "h.expert = ''" },
  { dim: 'expert', value: 'h.expert', where: "h.expert <> ''" },
] as const;
const WEEK_OF_DAY = `(SELECT DISTINCT day, week FROM ${HOUR_PERIODS}) AS w`;

/**
 * The statements that fill both tables, once `HOUR_PERIODS` holds every hour's day and week: the days
 * per topic, consumer and expert from the hours; the days of everything from the days per topic; every
 * week from its days.
 */
export function rebuildStatements(): string[] {
  const out = ['DELETE FROM insight_periods', 'DELETE FROM insight_period_times'];
  for (const kind of FROM_HOURS) {
    const from = (table: string, extra: string) => `FROM ${table} h JOIN ${HOUR_PERIODS} m ON m.hour = h.hour WHERE ${kind.where} GROUP BY ${kind.value}, m.day${extra}`;
    out.push(
      `INSERT INTO insight_periods (unit, dim, value, start, ${COLUMNS}) SELECT 'day', '${kind.dim}', ${kind.value}, m.day, ${sums('h')} ${from('insight_hours', '')}`,
      `INSERT INTO insight_period_times (unit, dim, value, start, metric, bucket, n)
        SELECT 'day', '${kind.dim}', ${kind.value}, m.day, h.metric, h.bucket, SUM(h.n) ${from('insight_times', ', h.metric, h.bucket')}`,
    );
  }
  out.push(
    `INSERT INTO insight_periods (unit, dim, value, start, ${COLUMNS})
      SELECT 'day', 'all', '', p.start, ${sums('p')} FROM insight_periods p WHERE p.unit = 'day' AND p.dim = 'topic' GROUP BY p.start`,
    `INSERT INTO insight_period_times (unit, dim, value, start, metric, bucket, n)
      SELECT 'day', 'all', '', p.start, p.metric, p.bucket, SUM(p.n) FROM insight_period_times p WHERE p.unit = 'day' AND p.dim = 'topic' GROUP BY p.start, p.metric, p.bucket`,
    `INSERT INTO insight_periods (unit, dim, value, start, ${COLUMNS})
      SELECT 'week', p.dim, p.value, w.week, ${sums('p')} FROM insight_periods p JOIN ${WEEK_OF_DAY} ON w.day = p.start
      WHERE p.unit = 'day' GROUP BY p.dim, p.value, w.week`,
    `INSERT INTO insight_period_times (unit, dim, value, start, metric, bucket, n)
      SELECT 'week', p.dim, p.value, w.week, p.metric, p.bucket, SUM(p.n) FROM insight_period_times p JOIN ${WEEK_OF_DAY} ON w.day = p.start
      WHERE p.unit = 'day' GROUP BY p.dim, p.value, w.week, p.metric, p.bucket`,
  );
  return out;
}
