import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bucketBounds, bucketOf } from '../../src/core/insight-buckets.js';
import { schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';
import { ENGINES } from './engines.js';
import { appendJournal, MONDAY_10, rewindBeforeInsights, rollupRows, scriptHistory } from './insight-history.js';
import { buildTestApp } from '../support/build-test-app.js';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { InsightQuery, InsightRollup } from '../../src/store/store.js';
import { periodStart } from '../../src/core/insight-periods.js';

const WINDOW = { from: '2026-11-16T00:00:00.000Z', to: '2026-12-07T00:00:00.000Z' };
const query = (extra: Record<string, string> = {}) => new URLSearchParams({ ...WINDOW, ...extra }).toString();

/** Whether a reported percentile is within the bucket bound (10 %) of the true time. */
function near(reported: number, trueSeconds: number): boolean {
  const [low, high] = bucketBounds(bucketOf(trueSeconds));
  return reported >= low && reported < high && Math.abs(reported - trueSeconds) / trueSeconds <= 0.1;
}

describe.each(ENGINES)('$name store: insight rollups count what happened', (engine) => {
  let dir = '';
  let kit: SchedulerKit;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), `expertq-insights-${engine.name}-`));
    // The kit types its store as SQLite's; these tests use only what every engine's store offers.
    kit = await schedulerKit({ openStore: () => engine.open(dir) as Promise<SqliteStore> });
  });
  afterEach(async () => {
    await kit.close();
    await engine.drop?.(dir);
    rmSync(dir, { recursive: true, force: true });
  });

  it('totals, per expert and per week equal the definitions after a scripted morning of work', async () => {
    await scriptHistory(kit);
    const res = await kit.t.call('GET', `/api/v1/insights?${query({ group_by: 'week' })}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const total = res.body.total;
    expect(total.requests).toEqual({
      submitted: 6,
      accepted: 2,
      rejected: 1,
      failed: 2,
      failed_by_reason: { timeout: 0, no_expert_found: 1, expert_declined: 0, rate_limited: 0, cancelled: 1, error: 0 },
      open: 1,
    });
    expect(total).toMatchObject({
      answered_from_library: 1,
      asks_spared: 1,
      // Dana: four first asks; Lee: after the skip, again after the send-back, after the mute.
      asks: 7,
      share_of_asks: 1,
      answers: 3,
      proposals: 4,
      sent_back: 1,
      share_sent_back: 0.25,
      asked_requests: 4,
      escalated_requests: 2,
      share_escalated: 0.5,
      skips: 1,
      mutes: 1,
      cap_holds: 0,
    });
    // First answers: 30 and 40 minutes after submission; decisions 30 min (accept), 10 min (reject), 20 min (library).
    expect(total.time_to_first_answer.count).toBe(2);
    expect(near(total.time_to_first_answer.p50_s, 1800)).toBe(true);
    expect(near(total.time_to_first_answer.p90_s, 2400)).toBe(true);
    expect(total.proposal_to_decision.count).toBe(3);
    expect(near(total.proposal_to_decision.p50_s, 1200)).toBe(true);
    expect(near(total.proposal_to_decision.p90_s, 1800)).toBe(true);

    expect(res.body.groups.map((g: { key: string }) => g.key)).toEqual(['2026-11-16', '2026-11-23', '2026-11-30']);
    const [before, week, after] = res.body.groups;
    expect(before.requests.submitted + after.requests.submitted + before.asks + after.asks).toBe(0);
    const { key: _key, ...weekFigures } = week;
    expect(weekFigures).toEqual(total);

    const experts = (await kit.t.call('GET', `/api/v1/insights?${query({ group_by: 'expert' })}`)).body;
    expect(experts.total).toEqual(total);
    const [dana, lee] = experts.groups;
    expect(dana).toMatchObject({
      key: 'dana',
      requests: { submitted: 4, accepted: 1, rejected: 1, failed: 1, open: 1 },
      asks: 4,
      share_of_asks: 4 / 7,
      answers: 1,
      // Her own answer, and the library answer made of it.
      proposals: 2,
      answered_from_library: 1,
      skips: 1,
      mutes: 1,
      escalated_requests: 2,
    });
    expect(lee).toMatchObject({
      key: 'lee',
      requests: { submitted: 2, rejected: 1, open: 1 },
      asks: 3,
      share_of_asks: 3 / 7,
      answers: 2,
      proposals: 2,
      sent_back: 1,
      escalated_requests: 2,
    });
    expect(experts.groups).toHaveLength(2);

    // expert= keeps the requests that expert was asked on; topic= and consumer= narrow the rest.
    const onlyLee = (await kit.t.call('GET', `/api/v1/insights?${query({ expert: 'lee' })}`)).body;
    expect(onlyLee.total.requests.submitted).toBe(2);
    expect(onlyLee.groups).toEqual([]);
    const ops = (await kit.t.call('GET', `/api/v1/insights?${query({ consumer: 'ops-bot', group_by: 'topic' })}`)).body;
    expect(ops.groups.map((g: { key: string; requests: { submitted: number } }) => [g.key, g.requests.submitted])).toEqual([['billing', 2]]);
  });

  it('a request counts in the hour it was submitted: a later outcome moves it there, not to the hour it ended', async () => {
    await scriptHistory(kit);
    const hourOfSubmits = { from: new Date(MONDAY_10).toISOString(), to: new Date(MONDAY_10 + 3_600_000).toISOString() };
    const first = (await kit.t.call('GET', `/api/v1/insights?${new URLSearchParams(hourOfSubmits)}`)).body.total;
    // Four submitted between 10:00 and 11:00; the accept at 11:00 and the reject at 11:30 count here.
    expect(first.requests).toMatchObject({ submitted: 4, accepted: 1, rejected: 1, failed: 2, open: 0 });
    // The answer at 10:30 counts in its own hour, with its time from submission.
    expect(first.answers).toBe(2);
    expect(first.time_to_first_answer.count).toBe(2);
  });

  it('grouped by day, each day of a whole week shows its own requests (not all on the Monday the week starts)', async () => {
    await kit.t.store.keepInsightsIn('UTC');
    await scriptHistory(kit); // six submitted on Monday 23 November
    for (const [day, n] of [['2026-11-25T09:00:00.000Z', 2], ['2026-11-28T15:00:00.000Z', 1]] as const) {
      kit.t.clock.set(Date.parse(day));
      for (let i = 0; i < n; i++) await kit.submit({ topic: 'gardening', question: `Which plants need shade? (${day} ${i})` });
    }
    const days = (await kit.t.call('GET', `/api/v1/insights?${query({ group_by: 'day' })}`)).body;
    expect(days.time_zone).toBe('UTC');
    const submitted = Object.fromEntries(days.groups.filter((g: { requests: { submitted: number } }) => g.requests.submitted > 0).map((g: { key: string; requests: { submitted: number } }) => [g.key, g.requests.submitted]));
    expect(submitted).toEqual({ '2026-11-23': 6, '2026-11-25': 2, '2026-11-28': 1 });
    const weeks = (await kit.t.call('GET', `/api/v1/insights?${query({ group_by: 'week' })}`)).body;
    expect(weeks.groups.map((g: { key: string; requests: { submitted: number } }) => [g.key, g.requests.submitted])).toEqual([
      ['2026-11-16', 0],
      ['2026-11-23', 9],
      ['2026-11-30', 0],
    ]);

    // A window reaching now reads the current week or day from its row: the same figures as its hours.
    kit.t.clock.set(Date.parse('2026-11-28T18:00:00.000Z'));
    for (const group_by of ['week', 'day', 'topic']) {
      const untilNow = (await kit.t.call('GET', `/api/v1/insights?${new URLSearchParams({ from: WINDOW.from, group_by })}`)).body;
      const hours = (await kit.t.call('GET', `/api/v1/insights?${new URLSearchParams({ from: WINDOW.from, to: '2026-11-28T16:00:00.000Z', group_by })}`)).body;
      expect(untilNow.total.requests.submitted).toBe(9);
      expect({ total: untilNow.total, groups: untilNow.groups }).toEqual({ total: hours.total, groups: hours.groups });
    }
  });

  it('the migration fills the rollups from the history kept: a database upgraded equals one that kept them live', async () => {
    await scriptHistory(kit);
    const live = await (async () => {
      await kit.t.stop();
      return rollupRows(engine.name, dir);
    })();
    expect(live.length).toBeGreaterThan(10);
    await rewindBeforeInsights(engine.name, dir);
    const upgraded = await buildTestApp({ openStore: () => engine.open(dir), dir: kit.t.dir });
    await upgraded.stop();
    expect(await rollupRows(engine.name, dir)).toEqual(live);
  });

  it('counts a transaction committed just before a crash left in the journal are not lost: they count once the service runs again', async () => {
    await scriptHistory(kit);
    await kit.t.stop();
    // Three requests of ops-bot about billing at 10:00, in the journal's form: [hour, topic, expert, consumer, column, n].
    await appendJournal(engine.name, dir, { h: [[MONDAY_10, 'billing', '', 'ops-bot', 0, 3]], t: [] });
    const again = await buildTestApp({ openStore: () => engine.open(dir), dir: kit.t.dir });
    try {
      const total = (await again.call('GET', `/api/v1/insights?${query({ group_by: 'week' })}`)).body.total;
      expect(total.requests.submitted).toBe(6 + 3);
    } finally {
      await again.stop();
    }
  });

  it('whole days and weeks read from their own rows equal the same window read hour by hour, in any time zone, live or rebuilt', async () => {
    const store = kit.t.store;
    expect(await store.keepInsightsIn('Europe/Berlin')).toBe(true);
    expect(await store.keepInsightsIn('Europe/Berlin')).toBe(false);
    await scriptHistory(kit);
    await store.foldInsights();
    const live = await readEvery('Europe/Berlin');
    for (const zone of ['UTC', 'Asia/Kolkata', 'America/New_York', 'Europe/Berlin']) {
      // A rebuild first says how many hour rows it reads (the start-up log's estimate).
      const told: number[] = [];
      expect(await store.keepInsightsIn(zone, (rows) => told.push(rows))).toBe(true);
      expect(told).toHaveLength(1);
      expect(told[0]).toBeGreaterThan(10);
      const rebuilt = await readEvery(zone);
      if (zone === 'Europe/Berlin') expect(rebuilt).toEqual(live);
    }

    /** Every kind of query over windows of an hour to a year, each read both ways (and checked equal). */
    async function readEvery(zone: string): Promise<unknown[]> {
      const hour = 3_600_000;
      const windows = [
        [MONDAY_10 - 400 * 24 * hour, MONDAY_10 + 30 * 24 * hour],
        [MONDAY_10 - 13 * hour, MONDAY_10 + 62 * hour + 1_234],
        [MONDAY_10 - 10 * 24 * hour, MONDAY_10 + 2 * hour],
        [MONDAY_10, MONDAY_10 + hour],
      ] as const;
      const kinds: Array<Omit<InsightQuery, 'from' | 'to'>> = [
        { expert: '', by: null },
        { expert: '', by: 'topic' },
        { expert: '', by: 'consumer' },
        { expert: null, by: 'expert' },
        { expert: 'lee', by: 'expert' },
        { expert: 'dana', by: null },
        { expert: '', topic: 'billing', by: null },
        { expert: '', consumer: 'ops-bot', by: 'consumer' },
        { expert: '', consumer: 'ops-bot', by: 'topic' },
        { expert: 'dana', topic: 'billing', by: null },
      ];
      const out: unknown[] = [];
      for (const [from, to] of windows) {
        const days: number[] = [];
        for (let d = periodStart(from, zone, 'day'); d < to; d = periodStart(d + 36 * hour, zone, 'day')) days.push(d);
        const weeks: number[] = [];
        for (let w = periodStart(from, zone, 'week'); w < to; w = periodStart(w + 8 * 24 * hour, zone, 'week')) weeks.push(w);
        const byPeriod: typeof kinds = [
          { expert: '', by: 'period', periods: days, periodUnit: 'day' },
          { expert: '', by: 'period', periods: weeks, periodUnit: 'week' },
          { expert: 'lee', by: 'period', periods: weeks, periodUnit: 'week' },
          { expert: '', topic: 'billing', by: 'period', periods: days },
        ];
        for (const kind of [...kinds, ...byPeriod]) {
          const q = { ...kind, from, to };
          const tiered = sorted(await store.insights.read({ ...q, zone }));
          expect(tiered, `${zone} ${JSON.stringify(q)}`).toEqual(sorted(await store.insights.read(q)));
          out.push(tiered);
        }
      }
      return out;
    }
  });
});

/** A read's rows in key order, without groups that counted nothing. */
function sorted(read: InsightRollup): InsightRollup {
  const by = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  return {
    counts: read.counts.filter((c) => Object.values(c.counts).some((n) => n !== 0)).sort(by),
    times: [...read.times].sort((a, b) => by(a, b) || a.metric.localeCompare(b.metric) || a.bucket - b.bucket),
  };
}
