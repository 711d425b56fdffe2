import { afterEach, describe, expect, it } from 'vitest';
import { HOUR, MINUTE, schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';

let k: SchedulerKit;
afterEach(async () => k.close());

/**
 * Deadlines live in the database, so a new process on the same file acts on them: each test stops the
 * app in the middle of a wait (closing the database), opens a new service on the same file, moves the
 * clock past the deadline and ticks.
 */
describe('a restart in the middle of a wait loses nothing', () => {
  it('escalation', async () => {
    k = await schedulerKit();
    const id = await k.submit();
    await k.tickAfter(HOUR);
    await k.restart();
    expect(k.recipients()).toEqual([]); // a new process, a new console

    expect(await k.tickAfter(HOUR - 1000)).toMatchObject({ escalated: 0 });
    expect(await k.tickAfter(1000)).toMatchObject({ escalated: 1 });
    expect(await k.asks(id)).toEqual([
      ['dana', 'escalated'],
      ['lee', 'open'],
    ]);
    expect(k.recipients()).toEqual(['lee']);
    expect((await k.auditOf(id, 'escalated'))[0]!.at).toBe('2026-11-23T12:00:00.000Z');
  });

  it('give-up, with its request_failed event', async () => {
    k = await schedulerKit({ config: { defaults: { give_up_after: '3h', escalation_after: '3h' } } });
    const id = await k.submit();
    await k.tickAfter(2 * HOUR);
    await k.restart();
    await k.tickAfter(HOUR);
    expect((await k.request(id)).reason.code).toBe('timeout');
    expect((await k.events(id)).map((e) => e.type)).toEqual(['request_failed']);
  });

  it('an ask waiting for quiet hours to end', async () => {
    k = await schedulerKit({ config: { defaults: { quiet_hours: ['09:00', '12:00'] } } });
    const id = await k.submit(); // 10:00 UTC: quiet until 12:00
    await k.restart();
    expect(await k.tickAt('2026-11-23T11:59:00Z')).toMatchObject({ sent: 0 });
    expect(await k.tickAt('2026-11-23T12:00:00Z')).toMatchObject({ sent: 1 });
    expect(k.recipients()).toEqual(['dana']);
    expect((await k.request(id)).status).toBe('asked');
  });

  it('catches up on a deadline that passed while the service was stopped', async () => {
    k = await schedulerKit();
    const id = await k.submit();
    await k.restart();
    k.t.clock.advance(3 * HOUR + 20 * MINUTE); // down from 10:00 to 13:20
    await k.tickAfter(0);
    expect((await k.request(id)).status).toBe('escalated');
    expect((await k.auditOf(id, 'escalated'))[0]).toMatchObject({ at: '2026-11-23T13:20:00.000Z', data: { due_at: '2026-11-23T12:00:00.000Z' } });
  });
});
