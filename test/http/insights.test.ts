import { afterEach, describe, expect, it } from 'vitest';
import { schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';
import { scriptHistory } from '../store/insight-history.js';
import { ADMIN, CONSUMER, credentials, REVIEWER } from '../store/insight-tokens.js';


let kit: SchedulerKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const insights = (token: string, query: Record<string, string>) => kit!.t.callAs(token, 'GET', `/api/v1/insights?${new URLSearchParams(query)}`);

describe('GET /insights', () => {
  it('answers reviewers and admins, and refuses a consumer token (403 forbidden)', async () => {
    kit = await schedulerKit({ token: ADMIN, credentials });
    expect((await insights(REVIEWER, {})).status).toBe(200);
    expect((await insights(ADMIN, {})).status).toBe(200);
    const consumer = await insights(CONSUMER, {});
    expect(consumer.status).toBe(403);
    expect(consumer.body.error.code).toBe('forbidden');
  });

  it('defaults to the last 30 days, in the organisation time zone', async () => {
    kit = await schedulerKit({ token: ADMIN, credentials }, '2026-11-23T10:00:00.000Z');
    const res = await insights(ADMIN, {});
    expect(res.body).toMatchObject({ from: '2026-10-24T10:00:00.000Z', to: '2026-11-23T10:00:00.000Z', group_by: null, time_zone: 'UTC', groups: [] });
    expect(res.body.total.requests.submitted).toBe(0);
    expect(res.body.total.time_to_first_answer).toEqual({ count: 0, p50_s: null, p90_s: null });
    expect(res.body.total.share_escalated).toBeNull();
  });

  it('refuses a bad window, group or parameter with 400 bad_request', async () => {
    kit = await schedulerKit({ token: ADMIN, credentials });
    const bad: Array<Record<string, string>> = [
      { from: '2026-11-20T00:00:00.000Z', to: '2026-11-10T00:00:00.000Z' },
      { from: '2026-11-10T00:00:00.000Z', to: '2026-11-10T00:00:00.000Z' },
      // Three years and a day.
      { from: '2023-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' },
      { group_by: 'month' },
      { from: 'last tuesday' },
      { colour: 'blue' },
    ];
    for (const query of bad) {
      const res = await insights(REVIEWER, query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.error.code).toBe('bad_request');
    }
    // Three years to the day is fine, every day listed.
    const days = await insights(REVIEWER, { from: '2023-01-01T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z', group_by: 'day' });
    expect(days.status).toBe(200);
    expect(days.body.groups).toHaveLength(1096);
    expect(days.body.groups.at(-1).key).toBe('2025-12-31');
  });

  it('groups by week, Monday first, in org.timezone: a submit at Sunday noon UTC (Monday 01:00 in Auckland) counts in the week of that Monday', async () => {
    kit = await schedulerKit({ token: ADMIN, credentials, config: { org: { name: 'Acme', timezone: 'Pacific/Auckland' } } });
    await scriptHistory(kit);
    // Monday 23 November, 10:00 UTC, is 23:00 on Monday in Auckland; Sunday 22 November 12:00 UTC is Monday 01:00 there.
    kit.t.clock.set('2026-11-22T12:00:00.000Z');
    await kit.submit({ target_experts: ['sam'], topic: 'deployments', question: 'Is the Sunday deploy freeze still on?' });
    const res = await insights(REVIEWER, { from: '2026-11-15T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z', group_by: 'week' });
    expect(res.status).toBe(200);
    expect(res.body.time_zone).toBe('Pacific/Auckland');
    expect(res.body.groups.map((g: { key: string; requests: { submitted: number }; asks: number }) => [g.key, g.requests.submitted, g.asks])).toEqual([
      ['2026-11-09', 0, 0],
      ['2026-11-16', 0, 0],
      ['2026-11-23', 7, 8],
      ['2026-11-30', 0, 0],
    ]);
    const week = res.body.groups[2];
    expect(week).toMatchObject({
      requests: { submitted: 7, accepted: 2, rejected: 1, failed: 2, open: 2 },
      answered_from_library: 1,
      proposals: 4,
      sent_back: 1,
      share_sent_back: 0.25,
      skips: 1,
      mutes: 1,
    });
    expect(week.time_to_first_answer).toEqual({ count: 2, p50_s: expect.any(Number), p90_s: expect.any(Number) });
    expect(Math.abs(week.time_to_first_answer.p50_s - 1800) / 1800).toBeLessThanOrEqual(0.1);
    expect(Math.abs(week.time_to_first_answer.p90_s - 2400) / 2400).toBeLessThanOrEqual(0.1);
  });
});
