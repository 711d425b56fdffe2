import { afterEach, describe, expect, it } from 'vitest';
import { HOUR, schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';

let k: SchedulerKit;
afterEach(async () => k.close());

const NIGHT = ['22:00', '07:00'];

/** The example registry in a zone, with quiet hours and any other defaults. */
const inZone = (timezone: string, defaults: Record<string, unknown> = {}) => ({
  config: { org: { name: 'Acme', timezone }, defaults: { quiet_hours: NIGHT, ...defaults } },
});

describe('quiet hours in org.timezone', () => {
  it('holds asks through a window that wraps midnight and sends them at its end in submission order', async () => {
    // Berlin is UTC+1 in November: 22:00-07:00 local is 21:00-06:00 UTC.
    k = await schedulerKit(inZone('Europe/Berlin'), '2026-11-23T21:30:00Z'); // 22:30 local
    const a = await k.submit({ topic: 'invoices' }); // Dana
    k.t.clock.set('2026-11-24T00:00:00Z'); // 01:00 local
    const b = await k.submit({ topic: 'payments' }); // Lee
    k.t.clock.set('2026-11-24T02:00:00Z'); // 03:00 local
    const c = await k.submit({ topic: 'invoices', question: 'And for credit notes?' }); // Dana again

    for (const id of [a, b, c]) {
      expect(await k.request(id)).toMatchObject({ status: 'queued', asks: [{ state: 'queued', sent_at: null }] });
      const [wait] = await k.auditOf(id, 'quiet_hours_wait');
      expect(wait!.data).toMatchObject({ quiet_hours: NIGHT, until: '2026-11-24T06:00:00.000Z' });
    }
    expect(await k.tickAt('2026-11-24T03:30:00Z')).toMatchObject({ sent: 0 });
    expect(await k.tickAt('2026-11-24T05:59:59Z')).toMatchObject({ sent: 0 });
    expect(k.recipients()).toEqual([]);

    expect(await k.tickAt('2026-11-24T06:00:00Z')).toMatchObject({ sent: 3 }); // 07:00 local
    expect(k.recipients()).toEqual(['dana', 'lee', 'dana']);
    expect(k.t.messages()[2]).toContain('And for credit notes?');
    for (const id of [a, b, c]) {
      expect(await k.request(id)).toMatchObject({ status: 'asked', asks: [{ state: 'open', sent_at: '2026-11-24T06:00:00.000Z' }] });
      // Waiting is audited once per window, however many ticks looked at it.
      expect((await k.audit(id)).map((e) => e.type)).toEqual(['received', 'routed', 'quiet_hours_wait', 'asked']);
    }
  });

  it('first, escalation and held-then-placed asks all wait, then go out in submission order as caps allow', async () => {
    k = await schedulerKit(inZone('Europe/Berlin', { max_open_asks_per_expert: 1 }), '2026-11-23T20:00:00Z'); // 21:00 local
    const r1 = await k.submit({ topic: 'kubernetes' }); // Sam asked
    k.t.clock.set('2026-11-23T20:30:00Z');
    const r2 = await k.submit({ topic: 'invoices' }); // Dana asked; escalates to Lee at 22:30 UTC, inside the window
    k.t.clock.set('2026-11-23T20:45:00Z');
    const r3 = await k.submit({ topic: 'kubernetes' }); // Sam is at his cap: held
    k.t.clock.set('2026-11-23T21:30:00Z');
    await k.reply('sam', 'Done.', r1); // frees Sam at 22:30 local: r3 is placed, its ask waits
    k.t.clock.set('2026-11-23T21:40:00Z');
    const r4 = await k.submit({ topic: 'payments' }); // Lee is free now: first ask waits for the window
    await k.tickAt('2026-11-23T22:30:00Z'); // r2 escalates to Lee: that ask waits too
    expect(await k.asks(r2)).toEqual([
      ['dana', 'escalated'],
      ['lee', 'queued'],
    ]);
    expect(await k.asks(r3)).toEqual([['sam', 'queued']]);
    expect(await k.asks(r4)).toEqual([['lee', 'queued']]);
    expect(k.recipients()).toEqual(['sam', 'dana']);

    await k.tickAt('2026-11-24T06:00:00Z');
    // Lee can take one: r2 (submitted 20:30) goes before r4 (21:40), though r4's ask was planned first.
    expect(k.recipients()).toEqual(['sam', 'dana', 'lee', 'sam']);
    expect(k.t.messages()[2]).toContain(`--request ${r2}`);
    expect((await k.asks(r2))[1]).toEqual(['lee', 'open']);
    expect(await k.asks(r3)).toEqual([['sam', 'open']]);
    expect(await k.asks(r4)).toEqual([['lee', 'queued']]);
  });

  it('also holds a window that does not wrap, and leaves asks outside it alone', async () => {
    k = await schedulerKit({ config: { defaults: { quiet_hours: ['12:00', '14:00'], escalation_after: '6h' } } }, '2026-11-23T11:59:00Z');
    const before = await k.submit();
    k.t.clock.set('2026-11-23T12:00:00Z');
    const inside = await k.submit({ topic: 'kubernetes' });
    expect((await k.request(before)).status).toBe('asked');
    expect((await k.request(inside)).status).toBe('queued');
    expect(await k.tickAt('2026-11-23T13:59:00Z')).toMatchObject({ sent: 0 });
    expect(await k.tickAt('2026-11-23T14:00:00Z')).toMatchObject({ sent: 1 });
    expect(k.recipients()).toEqual(['dana', 'sam']);
  });

  it('at the end of the window, caps still apply: the first submitted go out, the rest wait for capacity', async () => {
    k = await schedulerKit(inZone('Europe/Berlin', { max_open_asks_per_expert: 2 }), '2026-11-23T22:00:00Z');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await k.submit({ topic: 'invoices', question: `Question ${i}?` }));
      k.t.clock.advance(60_000);
    }
    expect(await k.tickAt('2026-11-24T06:00:00Z')).toMatchObject({ sent: 2 });
    expect((await Promise.all(ids.map((id) => k.request(id)))).map((r) => r.status)).toEqual(['asked', 'asked', 'queued']);
    // The third no longer waits for a time, only for Dana: it is off the quiet-hours index.
    expect((await Promise.all(ids.map((id) => k.t.store.asks.listFor(id)))).flat().filter((a) => a.state === 'queued' && a.send_after !== null)).toEqual([]);

    k.t.clock.set('2026-11-24T06:30:00Z');
    await k.reply('dana', 'Answer 0.', ids[0]);
    expect((await k.request(ids[2]!)).status).toBe('asked');
    expect(k.t.messages()[2]).toContain('Question 2?');
  });

  it('delays escalation sends: the request escalates on time, the new ask waits for the window to end', async () => {
    // Dana asked at 20:00 local; escalation_after 2h falls due at 22:00 local, inside the window.
    k = await schedulerKit(inZone('Europe/Berlin'), '2026-11-23T19:00:00Z');
    const id = await k.submit();
    await k.tickAt('2026-11-23T21:00:00Z');
    expect((await k.request(id)).status).toBe('escalated');
    expect(await k.asks(id)).toEqual([
      ['dana', 'escalated'],
      ['lee', 'queued'],
    ]);
    expect((await k.auditOf(id, 'escalated'))[0]!.at).toBe('2026-11-23T21:00:00.000Z');
    expect(k.recipients()).toEqual(['dana']);

    await k.tickAt('2026-11-24T06:00:00Z');
    expect(await k.asks(id)).toEqual([
      ['dana', 'escalated'],
      ['lee', 'open'],
    ]);
    expect(k.recipients()).toEqual(['dana', 'lee']);
    // Lee's own escalation_after runs from the send at 07:00 local.
    expect((await k.t.store.asks.listFor(id)).find((a) => a.expert_id === 'lee')).toMatchObject({ escalate_at: Date.parse('2026-11-24T08:00:00Z') });
  });

  it('a reply from the original expert overnight releases the escalation ask that was waiting', async () => {
    k = await schedulerKit(inZone('Europe/Berlin'), '2026-11-23T19:00:00Z');
    const id = await k.submit();
    await k.tickAt('2026-11-23T21:00:00Z');
    k.t.clock.set('2026-11-23T23:00:00Z');
    expect((await k.reply('dana', 'Thirty days.', id)).body.outcome).toBe('proposed');
    await k.tickAt('2026-11-24T06:00:00Z');
    expect(await k.asks(id)).toEqual([
      ['dana', 'answered'],
      ['lee', 'released'],
    ]);
    expect(k.recipients()).toEqual(['dana']);
  });

  it('does not pause the give-up clock', async () => {
    k = await schedulerKit(inZone('Europe/Berlin', { give_up_after: '8h' }), '2026-11-23T19:00:00Z'); // 20:00 local
    const id = await k.submit();
    await k.tickAt('2026-11-24T02:59:59Z');
    expect((await k.request(id)).status).toBe('escalated');
    await k.tickAt('2026-11-24T03:00:00Z'); // 04:00 local, deep inside the window
    expect((await k.request(id)).reason.code).toBe('timeout');
    expect(await k.asks(id)).toEqual([
      ['dana', 'escalated'],
      ['lee', 'released'],
    ]);
    await k.tickAt('2026-11-24T06:00:00Z');
    expect(k.recipients()).toEqual(['dana']);
  });

  it('a held request freed at night is placed but its ask waits for the window; a give-up then is timeout', async () => {
    k = await schedulerKit(inZone('Europe/Berlin', { max_open_asks_per_expert: 1, give_up_after: '12h' }), '2026-11-23T20:00:00Z');
    const first = await k.submit({ topic: 'kubernetes' }); // 21:00 local: Sam asked
    const held = await k.submit({ topic: 'kubernetes', routing_policy: { give_up_after: 'PT3H' } });
    expect((await k.auditOf(held, 'held')).length).toBe(1);
    k.t.clock.set('2026-11-23T21:30:00Z'); // 22:30 local
    await k.reply('sam', 'Done.', first);
    expect(await k.request(held)).toMatchObject({ status: 'queued', asks: [{ expert_id: 'sam', state: 'queued' }] });
    expect((await k.auditOf(held, 'quiet_hours_wait'))[0]!.data.until).toBe('2026-11-24T06:00:00.000Z');
    await k.tickAt('2026-11-23T23:00:00Z');
    expect((await k.request(held)).reason.code).toBe('timeout');
  });
});

describe('quiet hours on daylight-saving change days', () => {
  const cases = [
    // zone, submitted (23:00 local the evening before), the window ends at 07:00 local, which is:
    { zone: 'Europe/Berlin', change: 'spring forward', submit: '2026-03-28T22:00:00Z', end: '2026-03-29T05:00:00Z' },
    { zone: 'Europe/Berlin', change: 'fall back', submit: '2026-10-24T21:00:00Z', end: '2026-10-25T06:00:00Z' },
    { zone: 'America/New_York', change: 'spring forward', submit: '2026-03-08T04:00:00Z', end: '2026-03-08T11:00:00Z' },
    { zone: 'America/New_York', change: 'fall back', submit: '2026-11-01T03:00:00Z', end: '2026-11-01T12:00:00Z' },
  ];

  it.each(cases)('$zone $change: asks go out at 07:00 local ($end)', async ({ zone, submit, end }) => {
    k = await schedulerKit(inZone(zone), submit);
    const id = await k.submit();
    expect((await k.auditOf(id, 'quiet_hours_wait'))[0]!.data.until).toBe(new Date(end).toISOString());
    // One hour early is what a fixed UTC offset would get wrong on these days.
    expect(await k.tickAt(Date.parse(end) - HOUR)).toMatchObject({ sent: 0 });
    expect(await k.tickAt(Date.parse(end) - 1000)).toMatchObject({ sent: 0 });
    expect(await k.tickAt(end)).toMatchObject({ sent: 1 });
    expect((await k.request(id)).asks[0].sent_at).toBe(new Date(end).toISOString());
  });
});
