import type { Span, WindowTiers } from '../../core/insight-periods.js';
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
 * parameters, pushed onto `values` in the order of their placeholders: the text depends only on how many
 * there are, so a statement prepared once serves every window of the same shape.
 */
function periodStartSql(starts: readonly number[], column: string, values: unknown[], lo = 0, hi = starts.length - 1): string {
  const start = (i: number) => {
    values.push(Math.trunc(starts[i] ?? 0));
    return 'CAST(? AS BIGINT)';
  };
  if (lo >= hi) return start(lo);
  const mid = (lo + hi + 1) >> 1;
  values.push(Math.trunc(starts[mid]!));
  return `CASE WHEN ${column} < ? THEN ${periodStartSql(starts, column, values, lo, mid - 1)} ELSE ${periodStartSql(starts, column, values, mid, hi)} END`;
}

/**
 * The period starts of `starts` (ascending) that rows in [from, to) can fall in: from the period that
 * holds `from` to the last that starts before `to`. A window's ends hold a day or two of rows, which
 * then need a comparison or none instead of the whole window's tree: its text, kilobytes for three
 * years of weeks, was most of the statement's planning time.
 */
function startsWithin(starts: readonly number[], from: number, to: number): readonly number[] {
  const first = Math.max(0, starts.findLastIndex((s) => s <= from));
  const last = starts.findLastIndex((s) => s < to);
  return last < first ? starts.slice(first, first + 1) : starts.slice(first, last + 1);
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

/** A part's columns after `g`: as read, or summed within the part (`summed`, then the GROUP BY that ends the part). */
interface PartColumns {
  extra: string;
  summed?: { extra: string; groupBy: string };
}

/**
 * The rows a query sums, as one FROM: `g` (the group: a topic, consumer or expert, or the start of the
 * period the row falls in), then the `columns`. The rows of the periods grouped by need no comparison,
 * and are one per group already: only the other parts are summed first when `columns.summed` says how.
 */
function source(q: InsightQuery, tiers: WindowTiers | null, columns: PartColumns, tables: { hours: string; periods: string }): { from: string; values: unknown[] } {
  const values: unknown[] = [];
  const parts: string[] = [];
  const at = periodDim(q);
  /** Whether the rows of `unit` are the periods grouped by: their start is the group, one row each. */
  const ofPeriod = (unit: 'day' | 'week' | 'hour') => q.by === 'period' && q.periodUnit === unit;
  /** The group column's text; a period's start pushes its values first (the SELECT list comes before the WHERE). */
  const group = (column: string, unit: 'day' | 'week' | 'hour', [from, to]: Span) => {
    if (q.by !== 'period') return q.by === null ? "''" : unit === 'hour' ? q.by : 'value';
    return ofPeriod(unit) ? column : `(${periodStartSql(startsWithin(q.periods ?? [], from, to), column, values)})`;
  };
  /** The part's SELECT list after `g`, and what ends it. */
  const select = (unit: 'day' | 'week' | 'hour'): [string, string] =>
    ofPeriod(unit) || !columns.summed ? [columns.extra, ''] : [columns.summed.extra, ` GROUP BY ${columns.summed.groupBy}`];
  const hourSpans: readonly Span[] = tiers && at ? tiers.hours : [[q.from, q.to]];
  if (tiers && at) {
    const periodPart = (unit: 'day' | 'week', list: readonly Span[]) => {
      // One SELECT per span: each reads one range of the key (an OR of ranges would read them all).
      for (const [from, to] of list) {
        const g = group('start', unit, [from, to]);
        values.push(unit, at.dim, ...(at.value === undefined ? [] : [at.value]), from, to);
        const value = at.value === undefined ? '' : ' AND value = ?';
        const [extra, end] = select(unit);
        parts.push(`SELECT ${g} AS g, ${extra} FROM ${tables.periods} WHERE unit = ? AND dim = ?${value} AND start >= ? AND start < ?${end}`);
      }
    };
    if (tiers.weeks) periodPart('week', [tiers.weeks]);
    periodPart('day', tiers.days);
  }
  for (const [from, to] of hourSpans) {
    const g = group('hour', 'hour', [from, to]);
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
    const [extra, end] = select('hour');
    parts.push(`SELECT ${g} AS g, ${extra} FROM ${tables.hours} WHERE ${where.join(' AND ')} AND hour >= ? AND hour < ?${end}`);
  }
  return { from: `(${parts.join(' UNION ALL ')}) AS r`, values };
}

/** The reads of a query: both statements with their values. `tiers`: the window's whole weeks and days, when the rollups are kept in the query's zone. */
export function readSql(q: InsightQuery, tiers: WindowTiers | null): { counts: string; times: string; countValues: unknown[]; timeValues: unknown[] } {
  const counts = source(q, tiers, { extra: COLUMNS }, { hours: 'insight_hours', periods: 'insight_periods' });
  const times = source(q, tiers, { extra: 'metric, bucket, n', summed: { extra: 'metric, bucket, SUM(n) AS n', groupBy: '1, 2, 3' } }, { hours: 'insight_times', periods: 'insight_period_times' });
  return {
    counts: `SELECT g, ${SUMS} FROM ${counts.from} GROUP BY g`,
    // One row per group and metric, its buckets as text ("bucket:n,…"): three years by week are 300
    // rows instead of 5,600, each of which the server decoded one by one.
    // A bucket may be listed more than once (from two parts of the window): toRollup adds them up.
    times: `SELECT g, metric, string_agg(bucket || ':' || n, ',') AS buckets FROM ${times.from} GROUP BY g, metric`,
    countValues: counts.values,
    timeValues: times.values,
  };
}

/** Rows of both reads as the repository returns them (PostgreSQL sums are strings; a group's time buckets one text). */
export function toRollup(counts: Row[], times: Row[]): InsightRollup {
  return {
    counts: counts.map((r): InsightGroupCounts => ({
      key: String(r.g),
      counts: Object.fromEntries(INSIGHT_COUNTS.map((c) => [c, Number(r[c] ?? 0)])) as InsightCounts,
    })),
    times: times.flatMap((r) => {
      // A bucket listed twice (from two parts of the window) is one row.
      const buckets = new Map<number, number>();
      for (const pair of String(r.buckets).split(',')) {
        const colon = pair.indexOf(':');
        const bucket = Number(pair.slice(0, colon));
        buckets.set(bucket, (buckets.get(bucket) ?? 0) + Number(pair.slice(colon + 1)));
      }
      return [...buckets].map(([bucket, n]): InsightTimeCount => ({ key: String(r.g), metric: r.metric as InsightTime, bucket, n }));
    }),
  };
}
