import { afterEach, describe, expect, it } from 'vitest';
import { HOUR, MINUTE, schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';

let k: SchedulerKit;
afterEach(async () => k.close());

describe('max_asks_per_expert_per_day resets at local midnight', () => {
  it('counts calendar days in org.timezone, not UTC', async () => {
    k = await schedulerKit({ config: { org: { name: 'Acme', timezone: 'Europe/Berlin' } } });
    await k.submit({ topic: 'kubernetes' });
    await k.reply('sam', 'Done.');
    k.t.clock.set('2026-11-23T22:59:59Z'); // 23:59:59 in Berlin
    expect(await k.expert('sam')).toMatchObject({ asks_today: 1, open_asks: 0 });
    k.t.clock.set('2026-11-23T23:00:00Z'); // midnight in Berlin, 23:00 UTC
    expect((await k.expert('sam')).asks_today).toBe(0);
  });

  const changeDays = [
    // The local day of the change starts at `start` and the next one at `next`: 23 or 25 hours later.
    { zone: 'Europe/Berlin', change: 'spring forward (23 h day)', start: '2026-03-28T23:00:00Z', next: '2026-03-29T22:00:00Z' },
    { zone: 'Europe/Berlin', change: 'fall back (25 h day)', start: '2026-10-24T22:00:00Z', next: '2026-10-25T23:00:00Z' },
    { zone: 'America/New_York', change: 'spring forward (23 h day)', start: '2026-03-08T05:00:00Z', next: '2026-03-09T04:00:00Z' },
    { zone: 'America/New_York', change: 'fall back (25 h day)', start: '2026-11-01T04:00:00Z', next: '2026-11-02T05:00:00Z' },
  ];

  it.each(changeDays)('$zone, $change: held work is placed exactly at each local midnight', async ({ zone, start, next }) => {
    k = await schedulerKit(
      { config: { org: { name: 'Acme', timezone: zone }, defaults: { max_asks_per_expert_per_day: 1 } } },
      new Date(Date.parse(start) - HOUR).toISOString(), // 23:00 local the day before
    );
    const first = await k.submit({ topic: 'kubernetes' });
    await k.reply('sam', 'Done.', first);
    k.t.clock.advance(30 * MINUTE);
    const second = await k.submit({ topic: 'kubernetes' }); // today's one ask is used: held
    expect((await k.request(second)).status).toBe('queued');

    expect(await k.tickAt(Date.parse(start) - 1000)).toMatchObject({ placed: 0 });
    expect(await k.tickAt(start)).toMatchObject({ placed: 1 });
    expect((await k.request(second)).asks[0].sent_at).toBe(new Date(start).toISOString());
    await k.reply('sam', 'Done again.', second);

    // Mid-way through the change day: the one ask of the day is used again.
    k.t.clock.set(Date.parse(start) + 12 * HOUR);
    const third = await k.submit({ topic: 'kubernetes' });
    expect((await k.request(third)).status).toBe('queued');
    expect((await k.expert('sam')).asks_today).toBe(1);
    // A fixed 24 h day would release it an hour early (25 h day) or an hour late (23 h day).
    expect(await k.tickAt(Date.parse(start) + 22 * HOUR)).toMatchObject({ placed: 0 });
    expect(await k.tickAt(Date.parse(next) - 1000)).toMatchObject({ placed: 0 });
    expect((await k.expert('sam')).asks_today).toBe(1);
    expect(await k.tickAt(next)).toMatchObject({ placed: 1 });
    expect((await k.request(third)).asks[0].sent_at).toBe(new Date(next).toISOString());
    expect(await k.expert('sam')).toMatchObject({ asks_today: 1, open_asks: 1 });
  });
});

describe('max_open_asks_per_expert', () => {
  it('is a hard limit, taken from each request’s effective routing_policy', async () => {
    k = await schedulerKit(); // default cap 3
    const loose = await k.submit({ topic: 'invoices' }); // Dana: 1 open
    const strict = await k.submit({ topic: 'invoices', routing_policy: { max_open_asks_per_expert: 1 } });
    expect((await k.request(strict)).status).toBe('queued'); // Dana is at this request's cap
    const loose2 = await k.submit({ topic: 'invoices' });
    expect((await k.request(loose2)).status).toBe('asked'); // ...but not at the default one
    expect((await k.expert('dana')).open_asks).toBe(2);

    await k.reply('dana', 'One.', loose);
    expect((await k.request(strict)).status).toBe('queued'); // still 1 open
    await k.reply('dana', 'Two.', loose2);
    expect((await k.request(strict)).status).toBe('asked');
    expect((await k.expert('dana')).open_asks).toBe(1);
  });

  it('counts an escalated ask as released, so the original expert can take new work', async () => {
    k = await schedulerKit({ config: { defaults: { max_open_asks_per_expert: 1 } } });
    const first = await k.submit({ topic: 'invoices' });
    await k.tickAfter(2 * HOUR);
    expect(await k.asks(first)).toEqual([
      ['dana', 'escalated'],
      ['lee', 'open'],
    ]);
    const next = await k.submit({ topic: 'invoices' });
    expect((await k.request(next)).status).toBe('asked');
  });
});
