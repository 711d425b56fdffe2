import { INSIGHT_COUNTS } from '../insight-repository.js';

/**
 * Rebuilding the rows kept per day and week from the hour rows, for a time zone the rollups were not
 * kept in (a new database, or a changed `org.timezone`): the hours' days and weeks, computed by
 * expertq, go into a temporary table; each kind of row is then one INSERT … SELECT over the hours.
 */

/** The key under `serviceState` naming the time zone the day and week rows are kept in. */
export const PERIOD_ZONE_KEY = 'insights.period_zone';
export const HOUR_PERIODS = 'insight_hour_periods';

const SUMS = INSIGHT_COUNTS.map((c) => `SUM(h.${c})`).join(', ');
const KINDS = [
  { dim: 'all', value: "''", where: "h.expert = ''" },
  { dim: 'topic', value: 'h.topic', where: "h.expert = ''" },
  { dim: 'consumer', value: 'h.consumer', where: "h.expert = ''" },
  { dim: 'expert', value: 'h.expert', where: "h.expert <> ''" },
] as const;

/** The statements that fill both tables from the hours, once `HOUR_PERIODS` holds every hour's day and week. */
export function rebuildStatements(): string[] {
  const out = ['DELETE FROM insight_periods', 'DELETE FROM insight_period_times'];
  for (const unit of ['day', 'week'] as const) {
    for (const kind of KINDS) {
      const from = (table: string) => `FROM ${table} h JOIN ${HOUR_PERIODS} m ON m.hour = h.hour WHERE ${kind.where} GROUP BY ${kind.value === "''" ? '' : `${kind.value}, `}m.${unit}`;
      out.push(
        `INSERT INTO insight_periods (unit, dim, value, start, ${INSIGHT_COUNTS.join(', ')})
          SELECT '${unit}', '${kind.dim}', ${kind.value}, m.${unit}, ${SUMS} ${from('insight_hours')}`,
        `INSERT INTO insight_period_times (unit, dim, value, start, metric, bucket, n)
          SELECT '${unit}', '${kind.dim}', ${kind.value}, m.${unit}, h.metric, h.bucket, SUM(h.n) ${from('insight_times')}, h.metric, h.bucket`,
      );
    }
  }
  return out;
}
