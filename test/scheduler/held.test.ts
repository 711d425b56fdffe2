import { afterEach, describe, expect, it } from 'vitest';
import { HOUR, MINUTE, schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';

let k: SchedulerKit;
afterEach(async () => k.close());

/** Sam is the only kubernetes expert (no escalation_to); one open ask at a time. */
async function samAtCap(defaults: Record<string, unknown> = {}) {
  k = await schedulerKit({ config: { defaults: { max_open_asks_per_expert: 1, ...defaults } } });
  const first = await k.submit({ topic: 'kubernetes' });
  k.t.clock.advance(MINUTE);
  const held = await k.submit({ topic: 'kubernetes' });
  expect(await k.request(held)).toMatchObject({ status: 'queued', asks: [] });
  expect((await k.audit(held)).map((e) => e.type)).toEqual(['received', 'held']);
  return { first, held };
}

async function expectPlacedWithSam(id: string, at: string) {
  expect(await k.request(id)).toMatchObject({ status: 'asked', asks: [{ expert_id: 'sam', state: 'open', sent_at: at }] });
  const routed = await k.auditOf(id, 'routed');
  expect(routed).toEqual([{ at, type: 'routed', actor: 'system', data: expect.objectContaining({ experts: ['sam'], after: 'held' }) }]);
  expect(k.recipients().at(-1)).toBe('sam');
}

describe('held requests are placed as soon as capacity frees', () => {
  it('after an answer, in the same call', async () => {
    const { first, held } = await samAtCap();
    k.t.clock.set('2026-11-23T10:30:00Z');
    await k.reply('sam', 'Use a PodDisruptionBudget.', first);
    await expectPlacedWithSam(held, '2026-11-23T10:30:00.000Z');
    expect(k.recipients()).toEqual(['sam', 'sam']);
  });

  it('after a skip', async () => {
    const { first, held } = await samAtCap();
    await k.reply('sam', 'skip', first);
    expect((await k.request(first)).reason.code).toBe('expert_declined');
    await expectPlacedWithSam(held, '2026-11-23T10:01:00.000Z');
  });

  it('after a cancel', async () => {
    const { first, held } = await samAtCap();
    await k.t.call('POST', `/api/v1/requests/${first}/cancel`);
    await expectPlacedWithSam(held, '2026-11-23T10:01:00.000Z');
  });

  it('after a timeout releases the expert, in the same tick', async () => {
    const { first, held } = await samAtCap();
    const tick = await k.tickAt('2026-11-24T10:00:00Z'); // the first request gives up
    expect(tick).toMatchObject({ timed_out: 1, placed: 1 });
    expect((await k.request(first)).reason.code).toBe('timeout');
    await expectPlacedWithSam(held, '2026-11-24T10:00:00.000Z');
  });

  it('after an escalation releases the original expert, in the same tick', async () => {
    k = await schedulerKit({ config: { defaults: { max_open_asks_per_expert: 1 } } });
    const first = await k.submit({ topic: 'invoices' }); // only Dana (escalation_to Lee)
    const held = await k.submit({ topic: 'invoices' });
    expect((await k.request(held)).status).toBe('queued');

    const tick = await k.tickAfter(2 * HOUR);
    expect(tick).toMatchObject({ escalated: 1, placed: 1 });
    expect(await k.asks(first)).toEqual([
      ['dana', 'escalated'],
      ['lee', 'open'],
    ]);
    expect(await k.asks(held)).toEqual([['dana', 'open']]);
    expect(k.recipients()).toEqual(['dana', 'lee', 'dana']);
  });

  it('after the day rolls over (daily cap), at local midnight', async () => {
    const { first, held } = await samAtCap({ max_open_asks_per_expert: 5, max_asks_per_expert_per_day: 1 });
    await k.reply('sam', 'Done.', first); // open slot free, but today's one ask is used
    expect((await k.request(held)).status).toBe('queued');
    expect(await k.tickAt('2026-11-23T23:59:59Z')).toMatchObject({ placed: 0 });
    expect(await k.tickAt('2026-11-24T00:00:00Z')).toMatchObject({ placed: 1 });
    await expectPlacedWithSam(held, '2026-11-24T00:00:00.000Z');
    expect(await k.expert('sam')).toMatchObject({ asks_today: 1, open_asks: 1 });
  });

  it('in submission order, one at a time as the cap allows, never forced onto a busy expert', async () => {
    const { first, held } = await samAtCap();
    k.t.clock.advance(MINUTE);
    const third = await k.submit({ topic: 'kubernetes' });
    for (let i = 0; i < 3; i++) await k.tickAfter(HOUR); // ticks alone free nothing
    expect((await k.request(held)).status).toBe('queued');
    expect((await k.expert('sam')).open_asks).toBe(1);

    await k.reply('sam', 'Answer one.', first);
    expect((await k.request(held)).status).toBe('asked');
    expect((await k.request(third)).status).toBe('queued');
    await k.reply('sam', 'Answer two.', held);
    expect((await k.request(third)).status).toBe('asked');
  });

  it('a target_experts request waiting for a capped target is sent when that target frees up', async () => {
    k = await schedulerKit({ config: { defaults: { max_open_asks_per_expert: 1 } } });
    const first = await k.submit({ topic: 'kubernetes' });
    const targeted = await k.submit({ target_experts: ['sam'] });
    expect(await k.request(targeted)).toMatchObject({ status: 'queued', asks: [{ expert_id: 'sam', state: 'queued' }] });
    await k.reply('sam', 'Done.', first);
    expect(await k.request(targeted)).toMatchObject({ status: 'asked', asks: [{ expert_id: 'sam', state: 'open' }] });
  });

  it('survives a restart: the new process places it when the day has rolled over while stopped', async () => {
    const { first, held } = await samAtCap({ max_open_asks_per_expert: 5, max_asks_per_expert_per_day: 1 });
    await k.reply('sam', 'Done.', first);
    await k.tickAfter(HOUR);
    await k.restart();
    expect(await k.tickAt('2026-11-24T08:00:00Z')).toMatchObject({ placed: 1 });
    expect((await k.request(held)).status).toBe('asked');
  });
});

describe('a held request says why it waits and until when', () => {
  it('names the capped expert and, for a daily limit, when it resets; the server logs the hold', async () => {
    const { held } = await samAtCap({ max_open_asks_per_expert: 5, max_asks_per_expert_per_day: 1 });
    expect(await k.request(held)).toMatchObject({
      status: 'queued',
      waiting: { why: 'cap', expert_id: 'sam', until: '2026-11-24T00:00:00.000Z' },
      gives_up_at: '2026-11-24T10:01:00.000Z',
      asked: [],
    });
    expect(k.t.logs.lines).toContainEqual(expect.objectContaining({ request_id: held, msg: expect.stringMatching(/^request held: every expert who could take it is at a limit/) }));
    expect(await k.expert('sam')).toMatchObject({ available_now: false, unavailable: { why: 'cap', until: '2026-11-24T00:00:00.000Z' } });
  });

  it('an open-ask limit has no end time: it frees when an answer comes', async () => {
    const { first, held } = await samAtCap();
    expect((await k.request(held)).waiting).toEqual({ why: 'cap', expert_id: 'sam' });
    expect(await k.request(first)).toMatchObject({ waiting: null, asked: [{ expert_id: 'sam', expert_name: 'Sam Okafor', sent_at: '2026-11-23T10:00:00.000Z' }] });
    await k.reply('sam', 'Drain the node first.', first);
    expect(await k.request(first)).toMatchObject({ status: 'proposed', waiting: { why: 'review' }, gives_up_at: null });
  });

  it('raising the limit in the configuration and restarting releases it', async () => {
    const { held } = await samAtCap();
    await k.restart({ defaults: { max_open_asks_per_expert: 2 } });
    expect(await k.tickAfter(MINUTE)).toMatchObject({ placed: 1 });
    expect(await k.request(held)).toMatchObject({ status: 'asked', waiting: null, routing_policy: { max_open_asks_per_expert: 2 } });
  });

  it('a limit the request set itself stays after the restart', async () => {
    k = await schedulerKit({ config: { defaults: { max_open_asks_per_expert: 1 } } });
    await k.submit({ topic: 'kubernetes' });
    const held = await k.submit({ topic: 'kubernetes', routing_policy: { max_open_asks_per_expert: 1 } });
    await k.restart({ defaults: { max_open_asks_per_expert: 2 } });
    await k.tickAfter(MINUTE);
    expect(await k.request(held)).toMatchObject({ status: 'queued', waiting: { why: 'cap', expert_id: 'sam' } });
  });
});
