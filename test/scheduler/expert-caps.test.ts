import { afterEach, describe, expect, it } from 'vitest';
import { schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';

let k: SchedulerKit;
afterEach(async () => k.close());

/** Berlin-run organisation; Mei works from New York and takes at most one question a day. */
const config = (mei: Record<string, unknown>) => ({
  config: {
    org: { name: 'Acme', timezone: 'Europe/Berlin' },
    defaults: { quiet_hours: null, max_asks_per_expert_per_day: 10, max_open_asks_per_expert: 10 },
    experts: [
      { id: 'mei', name: 'Mei Tan', topics: ['payments'], ...mei },
      { id: 'lee', name: 'Lee Chen', topics: ['billing'] },
    ],
    topics: {},
  },
});

describe('an expert’s own caps', () => {
  it('max_asks_per_day holds the next request for that expert although the defaults allow more', async () => {
    k = await schedulerKit(config({ max_asks_per_day: 1 }), '2026-11-24T15:00:00Z');
    const first = await k.submit({ topic: 'payments' });
    expect(await k.asks(first)).toEqual([['mei', 'open']]);
    const second = await k.submit({ topic: 'payments' });
    expect(await k.request(second)).toMatchObject({ status: 'queued', asks: [], waiting: { why: 'cap', expert_id: 'mei' } });
    expect(await k.expert('mei')).toMatchObject({ asks_today: 1, available_now: false, unavailable: { why: 'cap' } });
  });

  it('max_open_asks holds the next request until the expert answers', async () => {
    k = await schedulerKit(config({ max_open_asks: 1 }), '2026-11-24T15:00:00Z');
    const first = await k.submit({ topic: 'payments' });
    const second = await k.submit({ topic: 'payments' });
    expect(await k.request(second)).toMatchObject({ status: 'queued', asks: [] });
    await k.reply('mei', 'Use the new processor.', first);
    expect(await k.asks(second)).toEqual([['mei', 'open']]);
  });

  it('asks_today counts the day in the expert’s own time zone', async () => {
    k = await schedulerKit(config({ timezone: 'America/New_York', max_asks_per_day: 1 }), '2026-11-24T22:00:00Z'); // 17:00 in New York, 23:00 in Berlin
    await k.submit({ topic: 'payments' });
    // Midnight in Berlin: a new day there, still the same afternoon for Mei.
    await k.tickAt('2026-11-24T23:30:00Z');
    expect(await k.expert('mei')).toMatchObject({ asks_today: 1, available_now: false, unavailable: { why: 'cap', until: '2026-11-25T05:00:00.000Z' } });
    const held = await k.submit({ topic: 'payments' });
    expect(await k.request(held)).toMatchObject({ status: 'queued', waiting: { why: 'cap', until: '2026-11-25T05:00:00.000Z' } });
    // Midnight in New York: her count starts again and the held request goes out.
    await k.tickAt('2026-11-25T05:00:00Z');
    expect(await k.expert('mei')).toMatchObject({ asks_today: 1 });
    expect(await k.asks(held)).toEqual([['mei', 'open']]);
  });
});
