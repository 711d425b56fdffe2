import { afterEach, describe, expect, it } from 'vitest';
import { CHAIN, HOUR, MINUTE, schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';

let k: SchedulerKit;
afterEach(async () => k.close());

const chainConfig = (defaults: Record<string, unknown> = {}) => ({
  config: { experts: CHAIN, topics: {}, defaults: { escalation_after: '1h', give_up_after: '1d', ...defaults } },
});

describe('escalation (seed: no reply within escalation_after)', () => {
  it('re-asks escalation_to, marks the request escalated and releases the original open ask', async () => {
    k = await schedulerKit();
    const id = await k.submit(); // billing → Dana (escalation_to Lee), escalation_after 2h
    expect((await k.expert('dana')).open_asks).toBe(1);

    expect((await k.tickAfter(2 * HOUR - 1000)).escalated).toBe(0);
    expect((await k.request(id)).status).toBe('asked');

    const tick = await k.tickAfter(1000);
    expect(tick.escalated).toBe(1);
    const req = await k.request(id);
    expect(req.status).toBe('escalated');
    expect(await k.asks(id)).toEqual([
      ['dana', 'escalated'],
      ['lee', 'open'],
    ]);
    expect(req.asks[1].sent_at).toBe('2026-11-23T12:00:00.000Z');
    expect((await k.expert('dana')).open_asks).toBe(0);
    expect((await k.expert('lee')).open_asks).toBe(1);

    const [escalated] = await k.auditOf(id, 'escalated');
    expect(escalated).toMatchObject({
      at: '2026-11-23T12:00:00.000Z',
      actor: 'system',
      data: { from: 'dana', to: 'lee', because: 'no_reply', due_at: '2026-11-23T12:00:00.000Z', waited: 'PT2H' },
    });
    expect((await k.audit(id)).map((e) => e.type)).toEqual(['received', 'routed', 'asked', 'escalated', 'asked']);

    // The escalation ask is a full ask: six elements, addressed to Lee.
    expect(k.recipients()).toEqual(['dana', 'lee']);
    const message = k.t.messages()[1]!;
    expect(message).toContain("Hi Lee, I'm an automated assistant for Acme (not a person).");
    expect(message).toContain('Reply `mute` to stop receiving questions, or `skip` to pass this one along.');
  });

  it('catches up after a late tick: the audit shows when it actually happened', async () => {
    k = await schedulerKit();
    const id = await k.submit();
    await k.tickAfter(5 * HOUR);
    expect(await k.asks(id)).toEqual([
      ['dana', 'escalated'],
      ['lee', 'open'],
    ]);
    const [escalated] = await k.auditOf(id, 'escalated');
    expect(escalated!.at).toBe('2026-11-23T15:00:00.000Z');
    expect(escalated!.data).toMatchObject({ due_at: '2026-11-23T12:00:00.000Z', waited: 'PT5H' });
  });

  it('walks a chain A → B → C, each target with its own escalation_after, then keeps waiting at the end', async () => {
    k = await schedulerKit(chainConfig());
    const id = await k.submit({ topic: 'tax' });

    await k.tickAfter(HOUR); // 11:00 Ana → Ben
    expect(await k.asks(id)).toEqual([
      ['ana', 'escalated'],
      ['ben', 'open'],
    ]);
    await k.tickAfter(HOUR - 1000); // 11:59:59: Ben's own hour is not over
    expect((await k.asks(id)).length).toBe(2);
    await k.tickAfter(1000); // 12:00 Ben → Cy
    expect(await k.asks(id)).toEqual([
      ['ana', 'escalated'],
      ['ben', 'escalated'],
      ['cy', 'open'],
    ]);
    expect((await k.auditOf(id, 'escalated')).map((e) => [e.at, e.data.from, e.data.to])).toEqual([
      ['2026-11-23T11:00:00.000Z', 'ana', 'ben'],
      ['2026-11-23T12:00:00.000Z', 'ben', 'cy'],
    ]);

    // Cy has no escalation_to: the request keeps waiting for Cy (or anyone asked earlier).
    const end = await k.tickAfter(HOUR);
    expect(end.escalated).toBe(0);
    expect((await k.request(id)).status).toBe('escalated');
    expect((await k.expert('cy')).open_asks).toBe(1);
    expect((await k.auditOf(id, 'escalated')).length).toBe(2);
    expect(k.recipients()).toEqual(['ana', 'ben', 'cy']);
    // ...and is not re-checked on every tick.
    expect((await k.t.store.asks.listFor(id)).find((a) => a.expert_id === 'cy')).toMatchObject({ escalate_at: null });
    expect((await k.reply('cy', 'Twelve days.')).body.outcome).toBe('proposed');
  });

  it('passes over a muted expert in the chain', async () => {
    k = await schedulerKit(chainConfig());
    await k.t.store.transaction((tx) => tx.asks.setMuted('ben', true, k.t.clock.now()));
    const id = await k.submit({ topic: 'tax' });
    await k.tickAfter(HOUR);
    expect(await k.asks(id)).toEqual([
      ['ana', 'escalated'],
      ['cy', 'open'],
    ]);
    expect((await k.auditOf(id, 'escalated'))[0]!.data).toMatchObject({ from: 'ana', to: 'cy' });
  });

  it('with nobody to escalate to (no escalation_to), keeps waiting and keeps the open ask', async () => {
    k = await schedulerKit();
    const id = await k.submit({ topic: 'kubernetes' }); // Sam, no escalation_to
    const tick = await k.tickAfter(3 * HOUR);
    expect(tick.escalated).toBe(0);
    expect(await k.request(id)).toMatchObject({ status: 'asked', asks: [{ expert_id: 'sam', state: 'open' }] });
    expect((await k.expert('sam')).open_asks).toBe(1);
    expect(await k.auditOf(id, 'escalated')).toEqual([]);
  });

  it('waits for a capped target: the ask is queued, then sent the moment the target frees up', async () => {
    k = await schedulerKit(chainConfig({ max_open_asks_per_expert: 1 }));
    // Ben is at his cap of 1 with a request that is in no hurry.
    const busy = await k.submit({ topic: 'payroll', routing_policy: { escalation_after: '1d' } });
    k.t.clock.advance(10 * MINUTE);
    const id = await k.submit({ topic: 'tax' });

    await k.tickAt('2026-11-23T11:10:00Z'); // Ana's hour is over; Ben is capped
    expect((await k.request(id)).status).toBe('escalated');
    expect(await k.asks(id)).toEqual([
      ['ana', 'escalated'],
      ['ben', 'queued'],
    ]);
    expect((await k.expert('ana')).open_asks).toBe(0);
    expect(k.recipients()).toEqual(['ben', 'ana']);

    // Capacity frees: Ben answers the other request, and the waiting ask goes out in that same call.
    k.t.clock.set('2026-11-23T11:20:00Z');
    await k.reply('ben', 'Payroll runs on the 25th.', busy);
    expect(await k.asks(id)).toEqual([
      ['ana', 'escalated'],
      ['ben', 'open'],
    ]);
    expect(k.recipients()).toEqual(['ben', 'ana', 'ben']);

    // Ben's own escalation_after counts from that send (11:20), not from when the escalation began.
    await k.tickAt('2026-11-23T12:19:59Z');
    expect((await k.asks(id)).length).toBe(2);
    await k.tickAt('2026-11-23T12:20:00Z');
    expect(await k.asks(id)).toEqual([
      ['ana', 'escalated'],
      ['ben', 'escalated'],
      ['cy', 'open'],
    ]);
  });

  it('passes a waiting escalation ask on down the chain when its target mutes meanwhile', async () => {
    k = await schedulerKit(chainConfig({ max_open_asks_per_expert: 1 }));
    const busy = await k.submit({ topic: 'payroll', routing_policy: { escalation_after: '1d' } }); // Ben at his cap
    const id = await k.submit({ topic: 'tax' });
    await k.tickAfter(HOUR);
    expect(await k.asks(id)).toEqual([
      ['ana', 'escalated'],
      ['ben', 'queued'],
    ]);
    k.t.clock.advance(MINUTE);
    expect((await k.reply('ben', 'mute', busy)).body.outcome).toBe('muted');
    // Ben's mute passes the busy request to Cy, and the ask waiting for Ben is passed on the same way.
    expect(await k.asks(busy)).toEqual([
      ['ben', 'skipped'],
      ['cy', 'open'],
    ]);
    expect(await k.asks(id)).toEqual([
      ['ana', 'escalated'],
      ['ben', 'skipped'],
      ['cy', 'queued'], // Cy is now at the cap of 1 too: it waits for Cy
    ]);
    expect((await k.auditOf(id, 'skipped'))[0]!.data).toMatchObject({ why: 'mute' });
  });

  it('still accepts a late reply from the original expert after escalation: the first reply wins', async () => {
    k = await schedulerKit();
    const id = await k.submit();
    await k.tickAfter(2 * HOUR);
    expect((await k.expert('lee')).open_asks).toBe(1);

    const late = await k.reply('dana', 'Thirty days.', id);
    expect(late.body.outcome).toBe('proposed');
    const req = await k.request(id);
    expect(req.status).toBe('proposed');
    expect(await k.asks(id)).toEqual([
      ['dana', 'answered'],
      ['lee', 'released'],
    ]);
    expect((await k.expert('lee')).open_asks).toBe(0);
    const proposal = (await k.t.call('GET', `/api/v1/proposals/${late.body.proposal_id}`)).body;
    expect(proposal.provenance).toMatchObject({ expert_id: 'dana', source: 'Dana Smith' });

    // Lee answering afterwards creates nothing.
    expect((await k.reply('lee', 'Thirty, I think.', id)).body.outcome).toBe('late_reply');
    // And nothing escalates or times out any more: the request is proposed.
    await k.tickAfter(2 * 86_400_000);
    expect((await k.request(id)).status).toBe('proposed');
  });

  it('a per-request routing_policy overrides escalation_after for that request only', async () => {
    k = await schedulerKit();
    const quick = await k.submit({ routing_policy: { escalation_after: 'PT30M' } });
    const normal = await k.submit();
    await k.tickAfter(30 * MINUTE);
    expect((await k.request(quick)).status).toBe('escalated');
    expect((await k.request(normal)).status).toBe('asked');
  });
});
