import { afterEach, describe, expect, it } from 'vitest';
import { HOUR, schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';

let k: SchedulerKit;
afterEach(async () => k.close());

/** A Berlin-run organisation; Mei works from Singapore (UTC+8), Mon-Fri 09:00-17:00 her time. */
const config = (defaults: Record<string, unknown> = {}, mei: Record<string, unknown> = {}) => ({
  config: {
    org: { name: 'Acme', timezone: 'Europe/Berlin' },
    defaults: { quiet_hours: null, escalation_after: '2h', give_up_after: '7d', ...defaults },
    experts: [
      { id: 'mei', name: 'Mei Tan', topics: ['payments'], timezone: 'Asia/Singapore', working_hours: 'Mon-Fri 09:00-17:00', ...mei },
      { id: 'lee', name: 'Lee Chen', topics: ['billing'] },
    ],
    topics: {},
  },
});

describe('asks wait for the expert’s working hours', () => {
  it('an ask made after her day ended goes out when it starts, and the consumer sees why and until when', async () => {
    k = await schedulerKit(config(), '2026-11-24T12:00:00Z'); // Tue 20:00 in Singapore
    const id = await k.submit({ topic: 'payments' });
    const waiting = { why: 'working_hours', expert_id: 'mei', until: '2026-11-25T01:00:00.000Z', timezone: 'Asia/Singapore' }; // Wed 09:00 there
    expect(await k.request(id)).toMatchObject({ status: 'queued', asks: [{ expert_id: 'mei', state: 'queued', sent_at: null }], waiting });
    expect((await k.auditOf(id, 'waiting_for_expert'))[0]!.data).toMatchObject({ expert_id: 'mei', why: 'working_hours', until: waiting.until });

    expect(await k.tickAt('2026-11-25T00:59:59Z')).toMatchObject({ sent: 0 });
    expect(k.recipients()).toEqual([]);
    expect(await k.tickAt('2026-11-25T01:00:00Z')).toMatchObject({ sent: 1 });
    expect(k.recipients()).toEqual(['mei']);
    // Escalation counts from the actual send.
    expect(await k.request(id)).toMatchObject({ status: 'asked', waiting: null, asks: [{ state: 'open', sent_at: '2026-11-25T01:00:00.000Z' }] });
    // The wait is audited once, however many ticks looked at it.
    expect((await k.audit(id)).map((e) => e.type)).toEqual(['received', 'routed', 'waiting_for_expert', 'asked']);
  });

  it('a waiting ask is looked at again when the registry changes: new hours that include now send it', async () => {
    k = await schedulerKit(config(), '2026-11-24T12:00:00Z'); // Tue 20:00 in Singapore
    const id = await k.submit({ topic: 'payments' });
    const put = await k.t.call('PUT', '/api/v1/experts', [
      { id: 'mei', name: 'Mei Tan', topics: ['payments'], timezone: 'Asia/Singapore', working_hours: 'Mon-Fri 09:00-22:00' },
      { id: 'lee', name: 'Lee Chen', topics: ['billing'] },
    ]);
    expect(put.status).toBe(200);
    expect(await k.tickAt('2026-11-24T12:00:01Z')).toMatchObject({ sent: 1 });
    expect(await k.asks(id)).toEqual([['mei', 'open']]);
  });

  it('her day ends on the minute: asked up to its last millisecond, not after, however often routing looked just before', async () => {
    k = await schedulerKit(config(), '2026-11-24T08:59:30Z'); // Tue 16:59:30 in Singapore
    const asked = [await k.submit({ topic: 'payments' })];
    await k.tickAt('2026-11-24T08:59:59.999Z');
    asked.push(await k.submit({ topic: 'payments' }));
    await k.tickAt('2026-11-24T09:00:00Z');
    const after = await k.submit({ topic: 'payments' });
    for (const id of asked) expect((await k.request(id)).status).toBe('asked');
    expect((await k.request(after)).waiting).toEqual({ why: 'working_hours', expert_id: 'mei', until: '2026-11-25T01:00:00.000Z', timezone: 'Asia/Singapore' });
  });

  it('a Friday evening ask waits for Monday morning in her zone', async () => {
    k = await schedulerKit(config(), '2026-11-27T10:00:00Z'); // Fri 18:00 in Singapore
    const id = await k.submit({ topic: 'payments' });
    expect((await k.request(id)).waiting).toEqual({ why: 'working_hours', expert_id: 'mei', until: '2026-11-30T01:00:00.000Z', timezone: 'Asia/Singapore' });
  });

  it('working hours and quiet hours together: the ask goes out when both allow it', async () => {
    // Quiet hours 00:00-04:00 Berlin (23:00-03:00 UTC) cover the start of Mei's day (01:00 UTC).
    k = await schedulerKit(config({ quiet_hours: ['00:00', '04:00'] }), '2026-11-24T12:00:00Z');
    const id = await k.submit({ topic: 'payments' });
    expect((await k.request(id)).waiting).toMatchObject({ why: 'working_hours', until: '2026-11-25T03:00:00.000Z' });
    expect(await k.tickAt('2026-11-25T01:00:00Z')).toMatchObject({ sent: 0 });
    expect(await k.tickAt('2026-11-25T03:00:00Z')).toMatchObject({ sent: 1 });
  });

  it('quiet hours alone still say quiet_hours', async () => {
    k = await schedulerKit(config({ quiet_hours: ['12:00', '14:00'] }, { working_hours: undefined }), '2026-11-24T11:30:00Z'); // 12:30 Berlin
    const id = await k.submit({ topic: 'payments' });
    // Quiet hours are the organisation's: their end is told on its clock.
    expect((await k.request(id)).waiting).toMatchObject({ why: 'quiet_hours', until: '2026-11-24T13:00:00.000Z', timezone: 'Europe/Berlin' });
    expect(await k.auditOf(id, 'quiet_hours_wait')).toHaveLength(1);
  });

  it('an escalation to an expert outside working hours waits for them too', async () => {
    k = await schedulerKit(
      {
        config: {
          ...config().config,
          experts: [
            { id: 'lee', name: 'Lee Chen', topics: ['billing'], escalation_to: 'mei' },
            { id: 'mei', name: 'Mei Tan', topics: ['payments'], timezone: 'Asia/Singapore', working_hours: 'Mon-Fri 09:00-17:00' },
          ],
        },
      },
      '2026-11-24T10:00:00Z',
    );
    const id = await k.submit({ topic: 'billing' });
    await k.tickAt(Date.parse('2026-11-24T10:00:00Z') + 2 * HOUR);
    expect(await k.asks(id)).toEqual([['lee', 'escalated'], ['mei', 'queued']]);
    expect((await k.request(id)).waiting).toMatchObject({ why: 'working_hours', expert_id: 'mei', until: '2026-11-25T01:00:00.000Z', timezone: 'Asia/Singapore' });
  });
});

describe('routing prefers who can answer now', () => {
  const mei = { id: 'mei', name: 'Mei Tan', topics: ['payments'], timezone: 'Asia/Singapore', working_hours: 'Mon-Fri 09:00-17:00' };
  const ana = { id: 'ana', name: 'Ana Ruiz', topics: ['payments'], working_hours: 'Mon-Fri 09:00-17:30' };
  /** Mei (Singapore) and Ana (Berlin) both take payments, in the registry order given. */
  const colleagues = (...experts: Array<typeof mei | typeof ana>) => ({
    config: { org: { name: 'Acme', timezone: 'Europe/Berlin' }, defaults: { quiet_hours: null }, experts, topics: {} },
  });

  it('an expert whose day ended is not asked; a colleague in working hours gets the question', async () => {
    k = await schedulerKit(colleagues(mei, ana), '2026-11-24T12:00:00Z'); // 20:00 in Singapore, 13:00 in Berlin
    const id = await k.submit({ topic: 'payments' });
    expect(await k.asks(id)).toEqual([['ana', 'open']]);
    expect(k.recipients()).toEqual(['ana']);
    expect((await k.request(id)).waiting).toBeNull();
  });

  it('when nobody is at work, the one who starts soonest is asked and the consumer sees when', async () => {
    k = await schedulerKit(colleagues(ana, mei), '2026-11-24T18:00:00Z'); // 02:00 Wed in Singapore, 19:00 in Berlin
    const id = await k.submit({ topic: 'payments' });
    expect(await k.asks(id)).toEqual([['mei', 'queued']]);
    expect((await k.request(id)).waiting).toEqual({ why: 'working_hours', expert_id: 'mei', until: '2026-11-25T01:00:00.000Z', timezone: 'Asia/Singapore' });
    expect(k.recipients()).toEqual([]);
  });
});
