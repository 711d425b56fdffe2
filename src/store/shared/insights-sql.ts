import type { WindowTiers } from '../../core/insight-periods.js';
import { type InsightCounts, INSIGHT_COUNTS, type InsightGroupCounts, type InsightQuery, type InsightRollup, type InsightTime, type InsightTimeCount } from '../insight-repository.js';
import type { Row } from '../row-records.js';

/**
 * The reads of the insight rollups, the same in both engines (`?` placeholders: `pgText`). A window's
 * whole weeks and days are read from the rows kept per week and day when the query's figures are kept
 * there (of everything, or narrowed or grouped by one of topic, consumer and expert); the hours at its
 * ends, and every other query, from the hour rows.
 */

type Dim = 'all' | 'topic' | 'consumer' | 'expert';
const SUMS = INSIGHT_COUNTS.map((c) => `SUM(${c}) AS ${c}`).join(', ');
const COLUMNS = INSIGHT_COUNTS.join(', ');

/**
 * The start of the period a time `column` falls in, as a balanced tree of comparisons (a dozen for the
 * 1,096 days of three years, where a flat CASE would try them one by one on every row). The starts are
 * numbers computed by expertq, never input, so they are written into the text.
 */
export function periodStartSql(starts: readonly number[], column: string, lo = 0, hi = starts.length - 1): string {
  if (lo >= hi) return String(Math.trunc(starts[lo] ?? 0));
  const mid = (lo + hi + 1) >> 1;
  return `CASE WHEN ${column} < ${Math.trunc(starts[mid]!)} THEN ${periodStartSql(starts, column, lo, mid - 1)} ELSE ${periodStartSql(starts, column, mid, hi)} END`;
}

/** The day and week rows that hold a query's figures: which of them, and narrowed to which value (undefined: every value). */
export function periodDim(q: InsightQuery): { dim: Dim; value: string | undefined } | null {
  const expert = q.expert === null ? undefined : q.expert === '' ? undefined : q.expert;
  const narrowed = (['topic', 'consumer', 'expert'] as const).filter((d) => (d === 'expert' ? expert !== undefined : q[d] !== undefined));
  const valueOf = (d: Exclude<Dim, 'all'>) => (d === 'expert' ? expert : q[d]);
  if (q.by === 'topic' || q.by === 'consumer' || q.by === 'expert') {
    if (q.by === 'expert' ? q.expert === '' : q.expert !== '') return null;
    if (narrowed.some((d) => d !== q.by)) return null;
    return { dim: q.by, value: valueOf(q.by) };
  }
  if (narrowed.length > 1) return null;
  if (narrowed.length === 0) return q.expert === '' ? { dim: 'all', value: undefined } : null;
  return { dim: narrowed[0]!, value: valueOf(narrowed[0]!) };
}

/**
 * The rows a query sums, as one FROM: `g` (the group: a topic, consumer or expert, or the start of the
 * period the row falls in), then `extra` columns. The rows of the periods grouped by need no comparison.
 */
function source(q: InsightQuery, tiers: WindowTiers | null, extra: string, tables: { hours: string; periods: string }): { from: string; values: unknown[] } {
  const values: unknown[] = [];
  const parts: string[] = [];
  const at = periodDim(q);
  const group = (column: string, unit: 'day' | 'week' | 'hour') => {
    if (q.by !== 'period') return q.by === null ? "''" : unit === 'hour' ? q.by : 'value';
    return q.periodUnit === unit ? column : `(${periodStartSql(q.periods ?? [], column)})`;
  };
  const hourSpans: Array<readonly [number, number]> = tiers && at ? tiers.hours : [[q.from, q.to]];
  if (tiers && at) {
    const periodPart = (unit: 'day' | 'week', list: ReadonlyArray<readonly [number, number]>) => {
      // One SELECT per span: each reads one range of the key (an OR of ranges would read them all).
      for (const [from, to] of list) {
        values.push(unit, at.dim, ...(at.value === undefined ? [] : [at.value]), from, to);
        const value = at.value === undefined ? '' : ' AND value = ?';
        parts.push(`SELECT ${group('start', unit)} AS g, ${extra} FROM ${tables.periods} WHERE unit = ? AND dim = ?${value} AND start >= ? AND start < ?`);
      }
    };
    if (tiers.weeks) periodPart('week', [tiers.weeks]);
    periodPart('day', tiers.days);
  }
  for (const [from, to] of hourSpans) {
    const where: string[] = [];
    if (q.expert === null) where.push("expert <> ''");
    else {
      where.push('expert = ?');
      values.push(q.expert);
    }
    for (const d of ['topic', 'consumer'] as const) {
      if (q[d] === undefined) continue;
      where.push(`${d} = ?`);
      values.push(q[d]);
    }
    values.push(from, to);
    parts.push(`SELECT ${group('hour', 'hour')} AS g, ${extra} FROM ${tables.hours} WHERE ${where.join(' AND ')} AND hour >= ? AND hour < ?`);
  }
  return { from: `(${parts.join(' UNION ALL ')}) AS r`, values };
}

/** The reads of a query: both statements with their values. `tiers`: the window's whole weeks and days, when the rollups are kept in the query's zone. */
export function readSql(q: InsightQuery, tiers: WindowTiers | null): { counts: string; times: string; countValues: unknown[]; timeValues: unknown[] } {
  const counts = source(q, tiers, COLUMNS, { hours: 'insight_hours', periods: 'insight_periods' });
  const times = source(q, tiers, 'metric, bucket, n', { hours: 'insight_times', periods: 'insight_period_times' });
  return {
    counts: `SELECT g, ${SUMS} FROM ${counts.from} GROUP BY g`,
    times: `SELECT g, metric, bucket, SUM(n) AS n FROM ${times.from} GROUP BY g, metric, bucket`,
    countValues: counts.values,
    timeValues: times.values,
  };
}

/** Rows of both reads as the repository returns them (PostgreSQL sums are strings). */
export function toRollup(counts: Row[], times: Row[]): InsightRollup {
  return {
    counts: counts.map((r): InsightGroupCounts => ({
      key: String(r.g),
      counts: Object.fromEntries(INSIGHT_COUNTS.map((c) => [c, Number(r[c] ?? 0)])) as InsightCounts,
    })),
    times: times.map((r): InsightTimeCount => ({ key: String(r.g), metric: r.metric as InsightTime, bucket: Number(r.bucket), n: Number(r.n) })),
  };
}
