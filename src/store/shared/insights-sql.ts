import { type InsightCount, type InsightCounts, INSIGHT_COUNTS, type InsightGroupCounts, type InsightQuery, type InsightRollup, type InsightTime, type InsightTimeCount } from '../insight-repository.js';
import type { Row } from '../row-records.js';

/**
 * The statements of the insight rollups, the same in both engines (`?` placeholders: `pgText`). Each
 * write is one upsert of a few rows, whose key leads with the expert: a read of everything is a range of
 * the rows of expert '' by hour.
 */

const KEY = 'hour, topic, expert, consumer';
const ON_KEY = 'ON CONFLICT (expert, hour, topic, consumer) DO UPDATE SET';
const adding = (columns: readonly string[]) => columns.map((c) => `${c} = insight_hours.${c} + excluded.${c}`).join(', ');
/** Values in a SELECT list: typed, since PostgreSQL cannot tell the type of a bare parameter there. */
const TYPED_KEY = 'CAST(? AS BIGINT), CAST(? AS TEXT), e.expert, CAST(? AS TEXT)';
const ASKED_EXPERTS = "SELECT '' AS expert UNION SELECT expert_id FROM asks WHERE request_id = ? AND sent_at IS NOT NULL";
const WAS_ESCALATED = "EXISTS (SELECT 1 FROM audit WHERE request_id = ? AND type = 'escalated')";

const cache = new Map<string, string>();
const once = (name: string, build: () => string): string => {
  let text = cache.get(name);
  if (text === undefined) cache.set(name, (text = build()));
  return text;
};

/** `add`: the same counts in the row of each expert. */
export function addSql(columns: readonly InsightCount[], rows: number): string {
  return once(`add ${columns.join()} ${rows}`, () => {
    const tuple = `(?, ?, ?, ?${', ?'.repeat(columns.length)})`;
    return `INSERT INTO insight_hours (${KEY}, ${columns.join(', ')}) VALUES ${Array.from({ length: rows }, () => tuple).join(', ')} ${ON_KEY} ${adding(columns)}`;
  });
}

export function addTimeSql(rows: number): string {
  return once(`time ${rows}`, () => {
    const tuple = '(?, ?, ?, ?, ?, ?, 1)';
    return `INSERT INTO insight_times (${KEY}, metric, bucket, n) VALUES ${Array.from({ length: rows }, () => tuple).join(', ')}
      ON CONFLICT (expert, hour, topic, consumer, metric, bucket) DO UPDATE SET n = insight_times.n + 1`;
  });
}

/** `addToRequest`: values key, counts, then the request id. */
export function addToRequestSql(columns: readonly InsightCount[]): string {
  return once(`request ${columns.join()}`, () => {
    const values = columns.map(() => 'CAST(? AS INTEGER)').join(', ');
    return `INSERT INTO insight_hours (${KEY}, ${columns.join(', ')}) SELECT ${TYPED_KEY}, ${values} FROM (${ASKED_EXPERTS}) AS e WHERE true ${ON_KEY} ${adding(columns)}`;
  });
}

/** `addSubmitted`: key, the outcome's 1 or 0 (as `outcome`), then the request id three times. */
export function addSubmittedSql(outcome: InsightCount | null): string {
  return once(`submitted ${outcome}`, () => {
    const columns = ['requests', 'asked_requests', ...(outcome === null || outcome === 'requests' ? [] : [outcome])];
    const asked = "CASE WHEN e.expert <> '' OR EXISTS (SELECT 1 FROM asks WHERE request_id = ? AND sent_at IS NOT NULL) THEN 1 ELSE 0 END";
    const values = ['1', asked, ...(columns.length > 2 ? ['1'] : [])].join(', ');
    return `INSERT INTO insight_hours (${KEY}, ${columns.join(', ')}) SELECT ${TYPED_KEY}, ${values} FROM (${ASKED_EXPERTS}) AS e WHERE true ${ON_KEY} ${adding(columns)}`;
  });
}

/** `addEscalated`: key, the request id, then the request id again (the audit check). */
export const ADD_ESCALATED = `INSERT INTO insight_hours (${KEY}, escalated_requests) SELECT ${TYPED_KEY}, 1 FROM (${ASKED_EXPERTS}) AS e
  WHERE NOT ${WAS_ESCALATED} ${ON_KEY} ${adding(['escalated_requests'])}`;

/**
 * `addAsked`: key, the request id (audit check), then the expert, request, expert and ask ids (their
 * first ask?), then the request and ask ids (the request's first ask?).
 */
export const ADD_ASKED = `INSERT INTO insight_hours (${KEY}, requests, asked_requests, escalated_requests)
  SELECT ${TYPED_KEY}, e.requests, 1, CASE WHEN e.expert <> '' AND ${WAS_ESCALATED} THEN 1 ELSE 0 END
  FROM (SELECT CAST(? AS TEXT) AS expert, 1 AS requests
          WHERE NOT EXISTS (SELECT 1 FROM asks WHERE request_id = ? AND expert_id = ? AND sent_at IS NOT NULL AND id <> ?)
        UNION ALL SELECT '', 0
          WHERE NOT EXISTS (SELECT 1 FROM asks WHERE request_id = ? AND sent_at IS NOT NULL AND id <> ?)) AS e
  WHERE true ${ON_KEY} ${adding(['requests', 'asked_requests', 'escalated_requests'])}`;

const GROUP: Record<Exclude<InsightQuery['by'], 'period' | null> | 'none', string> = { topic: 'topic', expert: 'expert', consumer: 'consumer', none: "''" };

/**
 * The index of the period an hour falls in, as a balanced tree of comparisons (a dozen for the 1,096
 * days of three years, where a flat CASE would try them one by one on every row). The starts are
 * numbers computed by expertq, never input, so they are written into the text.
 */
export function periodIndexSql(starts: readonly number[], lo = 0, hi = starts.length - 1): string {
  if (lo >= hi) return String(lo);
  const mid = (lo + hi + 1) >> 1;
  return `CASE WHEN hour < ${Math.trunc(starts[mid]!)} THEN ${periodIndexSql(starts, lo, mid - 1)} ELSE ${periodIndexSql(starts, mid, hi)} END`;
}

/** The reads of a query: its filters' clause and values, and both statements. */
export function readSql(q: InsightQuery): { counts: string; times: string; values: unknown[] } {
  const where = ['hour >= ?', 'hour < ?'];
  const values: unknown[] = [q.from, q.to];
  if (q.expert === null) where.unshift("expert <> ''");
  else {
    where.unshift('expert = ?');
    values.unshift(q.expert);
  }
  if (q.topic !== undefined) {
    where.push('topic = ?');
    values.push(q.topic);
  }
  if (q.consumer !== undefined) {
    where.push('consumer = ?');
    values.push(q.consumer);
  }
  const g = q.by === 'period' ? `(${periodIndexSql(q.periods ?? [0])})` : GROUP[q.by ?? 'none'];
  const sums = INSIGHT_COUNTS.map((c) => `SUM(${c}) AS ${c}`).join(', ');
  // One group: no key to group by (PostgreSQL refuses a constant there), and no row when nothing matched.
  const by = q.by === null ? '' : ` GROUP BY ${g}`;
  const having = q.by === null ? ' HAVING COUNT(*) > 0' : '';
  return {
    counts: `SELECT ${g} AS g, ${sums} FROM insight_hours WHERE ${where.join(' AND ')}${by}${having}`,
    times: `SELECT ${g} AS g, metric, bucket, SUM(n) AS n FROM insight_times WHERE ${where.join(' AND ')} GROUP BY ${q.by === null ? '' : `${g}, `}metric, bucket`,
    values,
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

/** The values of `add` for each expert's row. */
export function addValues(key: { hour: number; topic: string; consumer: string }, experts: readonly string[], columns: readonly InsightCount[], counts: Partial<InsightCounts>): unknown[] {
  return experts.flatMap((expert) => [key.hour, key.topic, expert, key.consumer, ...columns.map((c) => counts[c] ?? 0)]);
}
