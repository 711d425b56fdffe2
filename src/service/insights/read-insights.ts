import { DateTime } from 'luxon';
import { hourOf } from '../../core/insight-buckets.js';
import { periodEnd } from '../../core/insight-periods.js';
import { normalizeTopic } from '../../core/normalize-topic.js';
import { iso } from '../../clock.js';
import { badRequest } from '../../errors.js';
import type { InsightQuery, InsightRollup, Reads, Store } from '../../store/store.js';
import type { InsightsQuery, InsightsView } from '../../wire/insight-schemas.js';
import { addBucket, addCounts, emptyTally, figuresOf, mergeTallies, type Tally } from './insight-figures.js';

const DAY_MS = 86_400_000;
const DEFAULT_WINDOW_MS = 30 * DAY_MS;
/** Three years, a leap day included. */
const LONGEST_WINDOW_MS = (3 * 365 + 1) * DAY_MS;

export interface InsightsEngine {
  store: Pick<Reads, 'insights'> & Pick<Store, 'foldInsights'>;
  clock: { now(): number };
  config: { org: { timezone: string } };
}

/**
 * The insights of a window: read from the hourly rollups only, so a query costs the same at any
 * history size. Days and weeks (Monday first) are the organisation's; every period in the window is
 * listed, empty ones too.
 */
export async function readInsights(engine: InsightsEngine, query: InsightsQuery): Promise<InsightsView> {
  const to = query.to === undefined ? engine.clock.now() : Date.parse(query.to);
  const from = query.from === undefined ? to - DEFAULT_WINDOW_MS : Date.parse(query.from);
  if (!(from < to)) throw badRequest('`from` must be before `to`.', [{ path: 'from', message: 'must be before to' }]);
  if (to - from > LONGEST_WINDOW_MS) throw badRequest('The window is longer than three years: narrow `from` and `to`.', [{ path: 'to', message: 'at most three years after from' }]);
  const zone = engine.config.org.timezone;
  const by = query.group_by ?? null;
  // Nothing is counted after now: a window reaching it reads its last day or week whole, from that
  // period's row instead of each of its hours so far.
  const now = engine.clock.now();
  const readTo = to >= now ? Math.max(to, periodEnd(now, zone, by === 'day' ? 'day' : 'week')) : to;
  const base = {
    from: hourOf(from),
    to: readTo,
    zone,
    ...(query.topic !== undefined ? { topic: normalizeTopic(query.topic) } : {}),
    ...(query.consumer !== undefined ? { consumer: query.consumer } : {}),
  };
  const expert = query.expert ?? '';
  // Everything committed before this read counts: what transactions appended to the journal is folded first.
  await engine.store.foldInsights();
  const insights = engine.store.insights;
  let groups: Array<[string, Tally]>;
  let total: Tally;
  if (by === 'expert') {
    const [perExpert, all] = await Promise.all([
      insights.read({ ...base, expert: query.expert ?? null, by: 'expert' }),
      insights.read({ ...base, expert, by: null }),
    ]);
    groups = [...tallies(perExpert)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    total = mergeTallies(tallies(all).values());
  } else if (by === 'day' || by === 'week') {
    const { starts, keys } = periodsOf(from, to, zone, by);
    const perPeriod = tallies(await insights.read({ ...base, expert, by: 'period', periods: starts, periodUnit: by }));
    groups = keys.map((key, i) => [key, perPeriod.get(String(starts[i])) ?? emptyTally()]);
    total = mergeTallies(perPeriod.values());
  } else {
    const read = await insights.read({ ...base, expert, by } satisfies InsightQuery);
    const all = tallies(read);
    groups = by === null ? [] : [...all].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    total = mergeTallies(all.values());
  }
  const allAsks = total.counts.asks;
  return {
    from: iso(from),
    to: iso(to),
    group_by: by,
    time_zone: zone,
    total: figuresOf(total, allAsks),
    groups: groups.map(([key, t]) => ({ key, ...figuresOf(t, allAsks) })),
  };
}

/** A read's rows as one tally per group key. */
function tallies(read: InsightRollup): Map<string, Tally> {
  const out = new Map<string, Tally>();
  const of = (key: string) => {
    let t = out.get(key);
    if (!t) out.set(key, (t = emptyTally()));
    return t;
  };
  for (const row of read.counts) addCounts(of(row.key), row.counts);
  for (const row of read.times) addBucket(of(row.key), row.metric, row.bucket, row.n);
  return out;
}

/** The organisation's days or weeks (Monday first) between `from` and `to`: each one's start and first day. */
function periodsOf(from: number, to: number, zone: string, unit: 'day' | 'week'): { starts: number[]; keys: string[] } {
  const starts: number[] = [];
  const keys: string[] = [];
  let start = DateTime.fromMillis(hourOf(from), { zone }).startOf(unit);
  while (start.toMillis() < to) {
    starts.push(start.toMillis());
    keys.push(start.toISODate()!);
    start = start.plus(unit === 'week' ? { weeks: 1 } : { days: 1 });
  }
  return { starts, keys };
}
