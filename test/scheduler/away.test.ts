import { afterEach, describe, expect, it } from 'vitest';
import { DAY, HOUR, schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';

let k: SchedulerKit;
afterEach(async () => k.close());

/** Ana and Dee both take tax; Ana escalates to Ben; Mei takes tax too but works Singapore hours. */
const EXPERTS = [
  { id: 'ana', name: 'Ana Garcia', topics: ['tax'], escalation_to: 'ben' },
  { id: 'ben', name: 'Ben Berg', topics: ['payroll'] },
  { id: 'dee', name: 'Dee Park', topics: ['benefits'] },
  { id: 'mei', name: 'Mei Tan', topics: ['visas'], timezone: 'Asia/Singapore', working_hours: 'Mon-Fri 09:00-17:00' },
];
const config = { config: { experts: EXPERTS, topics: {}, defaults: { quiet_hours: null, escalation_after: '4h', give_up_after: '30d' } } };
const START = '2026-11-24T10:00:00Z'; // Tuesday; 18:00 in Singapore

const goAway = (id: string, body: Record<string, unknown>) => k.t.call('PUT', `/api/v1/experts/${id}/away`, body);
const trail = async (id: string) => (await k.t.call('GET', `/api/v1/audit?expert_id=${id}`)).body as Array<{ type: string; actor: string; data: Record<string, unknown> }>;

describe('going away', () => {
  it('shows the spell in the registry, and ends it on request (twice is fine)', async () => {
    k = await schedulerKit(config, START);
    const set = await goAway('ana', { until: '3d', delegate_to: 'dee', note: 'Holiday' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const away = { until: '2026-11-27T10:00:00.000Z', delegate_to: 'dee', note: 'Holiday', set_by: 'reviewer:admin', set_at: '2026-11-24T10:00:00.000Z' };
    expect(set.body).toMatchObject({ id: 'ana', away, available_now: false, next_available_at: away.until, unavailable: { why: 'away', until: away.until } });
    expect(await k.expert('ana')).toMatchObject({ away, available_now: false });

    const back = await k.t.call('DELETE', '/api/v1/experts/ana/away');
    expect(back.body).toMatchObject({ away: null, available_now: true, next_available_at: null });
    expect((await k.t.call('DELETE', '/api/v1/experts/ana/away')).status).toBe(200);
    expect((await trail('ana')).map((e) => [e.type, e.actor])).toEqual([['away', 'reviewer:admin'], ['back', 'reviewer:admin']]);
  });

  it('next_available_at is the start of the working day after the spell when it ends out of hours', async () => {
    k = await schedulerKit(config, START);
    // Ends Wed 2026-11-25 at 20:00 Singapore (12:00Z); her next day starts Thu 09:00 there (01:00Z).
    const set = await goAway('mei', { until: '2026-11-25T20:00' });
    expect(set.body).toMatchObject({ away: { until: '2026-11-25T12:00:00.000Z' }, next_available_at: '2026-11-26T01:00:00.000Z' });
  });

  it('refuses a spell in the past, a text that is no time, an unknown or self delegate, and an unknown expert', async () => {
    k = await schedulerKit(config, START);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ until: '2026-11-01T00:00:00Z' }, 'until'],
      [{ until: 'next week' }, 'until'],
      [{ until: '2y' }, 'until'],
      [{ until: '1d', delegate_to: 'nobody' }, 'delegate_to'],
      [{ until: '1d', delegate_to: 'ana' }, 'delegate_to'],
    ];
    for (const [body, path] of cases) {
      const res = await goAway('ana', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('bad_request');
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    expect((await goAway('nobody', { until: '1d' })).status).toBe(404);
    expect((await k.t.call('DELETE', '/api/v1/experts/nobody/away')).status).toBe(404);
    expect((await k.expert('ana')).away).toBeNull();
  });
});

describe('what going away does to questions', () => {
  it('an open question moves to the delegate at once', async () => {
    k = await schedulerKit(config, START);
    const id = await k.submit({ topic: 'tax' });
    expect(await k.asks(id)).toEqual([['ana', 'open']]);
    await goAway('ana', { until: '2d', delegate_to: 'dee' });
    expect(await k.asks(id)).toEqual([['ana', 'skipped'], ['dee', 'open']]);
    expect((await k.auditOf(id, 'passed_on'))[0]!.data).toMatchObject({ why: 'away', to: 'dee' });
    expect(k.recipients()).toEqual(['ana', 'dee']);
  });

  it('with the delegate out of their working hours, the question follows the escalation chain instead', async () => {
    k = await schedulerKit(config, START); // 18:00 in Singapore: Mei's day is over
    const id = await k.submit({ topic: 'tax' });
    await goAway('ana', { until: '2d', delegate_to: 'mei' });
    expect(await k.asks(id)).toEqual([['ana', 'skipped'], ['ben', 'open']]);
    expect((await k.auditOf(id, 'passed_on'))[0]!.data).toMatchObject({ why: 'away', to: 'ben' });
  });

  it('without a delegate or an escalation chain, an open question moves to a colleague on the topic instead of failing', async () => {
    k = await schedulerKit({ config: { ...config.config, experts: [{ id: 'tia', name: 'Tia Ray', topics: ['tax'] }, ...EXPERTS] } }, START);
    const id = await k.submit({ topic: 'tax' });
    expect(await k.asks(id)).toEqual([['tia', 'open']]);
    await goAway('tia', { until: '2d' });
    expect(await k.asks(id)).toEqual([['tia', 'skipped'], ['ana', 'open']]);
    expect((await k.auditOf(id, 'passed_on'))[0]!.data).toMatchObject({ why: 'away', to: 'ana' });
    expect((await k.request(id)).status).toBe('escalated');
  });

  it('a new question that would have gone to the away expert goes to the delegate; after the spell she is asked again', async () => {
    k = await schedulerKit(config, START);
    await goAway('ana', { until: '1d', delegate_to: 'dee' });
    const during = await k.submit({ topic: 'tax' });
    expect(await k.asks(during)).toEqual([['dee', 'open']]);
    expect((await k.t.call('GET', '/api/v1/topics')).body.find((t: { topic: string }) => t.topic === 'tax')).toMatchObject({ experts: 1, available_now: 0 });

    expect(await k.tickAt(Date.parse(START) + DAY)).toBeDefined();
    expect((await k.expert('ana')).available_now).toBe(true);
    const after = await k.submit({ topic: 'tax' });
    expect(await k.asks(after)).toEqual([['ana', 'open']]);
    // The spell ended once, by the scheduler, however many ticks followed.
    await k.tickAfter(HOUR);
    expect((await trail('ana')).map((e) => [e.type, e.actor])).toEqual([['away', 'reviewer:admin'], ['back', 'system']]);
  });

  it('without a delegate, routing passes over the away expert like a muted one', async () => {
    k = await schedulerKit(
      { config: { ...config.config, experts: [...EXPERTS, { id: 'tia', name: 'Tia Ray', topics: ['tax'] }] } },
      START,
    );
    await goAway('ana', { until: '1d' });
    const id = await k.submit({ topic: 'tax' });
    expect(await k.asks(id)).toEqual([['tia', 'open']]);
  });
});
