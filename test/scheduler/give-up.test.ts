import { afterEach, describe, expect, it, vi } from 'vitest';
import { DAY, HOUR, MINUTE, schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';

let k: SchedulerKit;
afterEach(async () => k.close());

describe('give-up (seed: nobody replies anywhere within give_up_after)', () => {
  it('fails the request with timeout at give_up_after, releases every ask and writes request_failed', async () => {
    k = await schedulerKit();
    const id = await k.submit(); // Dana, escalates to Lee at 12:00; give_up_after 1d
    await k.tickAfter(2 * HOUR);
    expect((await k.expert('lee')).open_asks).toBe(1);

    expect((await k.tickAt('2026-11-24T09:59:59Z')).timed_out).toBe(0);
    expect((await k.request(id)).status).toBe('escalated');

    const tick = await k.tickAt('2026-11-24T10:00:00Z');
    expect(tick.timed_out).toBe(1);
    const req = await k.request(id);
    expect(req).toMatchObject({ status: 'failed', reason: { code: 'timeout', message: 'Nobody replied within give_up_after (P1D).' } });
    expect(await k.asks(id)).toEqual([
      ['dana', 'escalated'],
      ['lee', 'released'],
    ]);
    expect((await k.expert('lee')).open_asks).toBe(0);
    expect((await k.expert('dana')).open_asks).toBe(0);

    const [failed] = await k.auditOf(id, 'failed');
    expect(failed).toMatchObject({ at: '2026-11-24T10:00:00.000Z', actor: 'system', data: { code: 'timeout' } });

    const events = await k.events(id);
    expect(events.map((e) => e.type)).toEqual(['request_failed']);
    expect(events[0]!.created_at).toBe(Date.parse('2026-11-24T10:00:00Z'));
    expect(events[0]!.body).toMatchObject({
      event: 'request_failed',
      request_id: id,
      created_at: '2026-11-24T10:00:00.000Z',
      reason: { code: 'timeout', message: expect.any(String) },
    });

    // A failed request is done: later ticks change nothing, later replies are late.
    expect(await k.tickAfter(DAY)).toMatchObject({ timed_out: 0, escalated: 0 });
    expect((await k.reply('lee', 'Thirty days.', id)).body.outcome).toBe('late_reply');
  });

  it('gives up at a give_up_after shorter than escalation_after, before anyone else is asked', async () => {
    k = await schedulerKit();
    // Only give_up_after: the default escalation_after (2 h) is longer, and that is a valid policy.
    const id = await k.submit({ routing_policy: { give_up_after: 'PT15M' } });
    expect((await k.request(id)).status).toBe('asked');
    expect((await k.tickAfter(15 * MINUTE - 1)).timed_out).toBe(0);
    expect((await k.tickAfter(1)).timed_out).toBe(1);
    expect(await k.request(id)).toMatchObject({ status: 'failed', reason: { code: 'timeout', message: 'Nobody replied within give_up_after (PT15M).' } });
    expect(await k.asks(id)).toEqual([['dana', 'released']]);
    expect(k.recipients()).toEqual(['dana']);
  });

  it('starts with defaults.give_up_after shorter than defaults.escalation_after and accepts submits under them', async () => {
    k = await schedulerKit({ config: { defaults: { give_up_after: '10m', escalation_after: '2h' } } });
    const id = await k.submit();
    await k.tickAfter(10 * MINUTE);
    expect(await k.request(id)).toMatchObject({ status: 'failed', reason: { code: 'timeout' } });
    expect(k.recipients()).toEqual(['dana']);
  });

  it('delivers on_request_failed to the subscribed consumer', async () => {
    k = await schedulerKit();
    const received: Array<Record<string, unknown>> = [];
    await k.t.service.registerConsumer(
      { id: 'billing-bot', handles_kinds: ['answer'], delivery: { type: 'in_process' } },
      { onRequestFailed: (event) => void received.push(event) },
    );
    const id = await k.submit();
    await k.tickAfter(DAY);
    expect(received).toEqual([
      expect.objectContaining({ event: 'request_failed', request_id: id, reason: { code: 'timeout', message: 'Nobody replied within give_up_after (P1D).' } }),
    ]);
  });

  it('fails with rate_limited, not timeout, when the request was held (never placed) all along', async () => {
    k = await schedulerKit({ config: { defaults: { max_open_asks_per_expert: 1 } } });
    const first = await k.submit({ topic: 'kubernetes' }); // Sam, his only slot
    const held = await k.submit({ topic: 'kubernetes', routing_policy: { give_up_after: 'PT1H', escalation_after: 'PT30M' } });
    expect(await k.request(held)).toMatchObject({ status: 'queued', asks: [] });

    const tick = await k.tickAfter(HOUR);
    expect(tick).toMatchObject({ rate_limited: 1, timed_out: 0 });
    expect((await k.request(held)).reason).toEqual({
      code: 'rate_limited',
      message: 'Every expert who could answer stayed at a rate-limit cap for the whole give_up_after (PT1H).',
    });
    expect((await k.events(held)).map((e) => (e.body.reason as { code: string }).code)).toEqual(['rate_limited']);
    expect((await k.request(first)).status).toBe('asked');
  });

  it('never times out a proposed request: it waits for the human decision', async () => {
    k = await schedulerKit();
    const id = await k.submit();
    const answer = await k.reply('dana', 'Thirty days.');
    await k.tickAfter(3 * DAY);
    expect((await k.request(id)).status).toBe('proposed');
    expect((await k.events(id)).map((e) => e.type)).not.toContain('request_failed');
    const accepted = await k.t.call('POST', `/api/v1/proposals/${answer.body.proposal_id}/accept`, { decided_by: 'rev' });
    expect(accepted.body.status).toBe('accepted');
  });

  it('gives up rather than escalates when both deadlines have passed by the time of a (late) tick', async () => {
    k = await schedulerKit();
    const id = await k.submit();
    const tick = await k.tickAfter(2 * DAY);
    expect(tick).toMatchObject({ timed_out: 1, escalated: 0 });
    expect(await k.asks(id)).toEqual([['dana', 'released']]);
    expect(k.recipients()).toEqual(['dana']);
  });

  it('times out (not rate_limited) a request that waited only for quiet hours and was never sent', async () => {
    k = await schedulerKit({ config: { defaults: { quiet_hours: ['08:00', '18:00'], give_up_after: '2h' } } }); // 10:00 UTC: quiet
    const id = await k.submit();
    expect(await k.asks(id)).toEqual([['dana', 'queued']]);
    await k.tickAfter(2 * HOUR);
    expect((await k.request(id)).reason.code).toBe('timeout');
    expect(await k.asks(id)).toEqual([['dana', 'released']]);
    expect(k.recipients()).toEqual([]);
  });

  it('handles many due requests in one tick, each in the audit at the tick time', async () => {
    k = await schedulerKit({ config: { defaults: { max_open_asks_per_expert: 100, max_asks_per_expert_per_day: 100 } } });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push(await k.submit({ topic: 'kubernetes', routing_policy: { give_up_after: `PT${10 + i}M`, escalation_after: 'PT5M' } }));
    }
    const tick = await k.tickAfter(HOUR);
    expect(tick.timed_out).toBe(30);
    for (const id of ids) expect((await k.auditOf(id, 'failed'))[0]!.at).toBe('2026-11-23T11:00:00.000Z');
    expect((await k.expert('sam')).open_asks).toBe(0);
  });

  it('fails one request with reason error when its processing throws, and carries on with the rest', async () => {
    k = await schedulerKit();
    const bad = await k.submit({ topic: 'kubernetes' });
    k.t.clock.advance(MINUTE);
    const good = await k.submit({ topic: 'kubernetes' });
    // Giving up on `bad` always throws (at its last step, after its writes): the batch is rolled back
    // and redone one request at a time, and only `bad` fails, with reason error.
    const log = k.t.service.log;
    const info = log.info.bind(log);
    const spy = vi.spyOn(log, 'info').mockImplementation(((obj: { request_id?: string }, msg?: string) => {
      if (obj?.request_id === bad && msg === 'request gave up') throw new Error('disk on fire');
      return info(obj, msg);
    }) as typeof log.info);
    await k.tickAfter(2 * DAY);
    spy.mockRestore();
    expect((await k.request(bad)).reason.code).toBe('error');
    expect((await k.request(good)).reason.code).toBe('timeout');
    expect(k.t.logs.lines.some((l) => l.request_id === bad && l.msg === 'scheduled work on a request failed')).toBe(true);
  });
});
