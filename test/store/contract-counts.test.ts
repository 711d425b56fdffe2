import { describe, expect, it } from 'vitest';
import type { ExpertLiveState } from '../../src/domain/records.js';
import type { Store } from '../../src/store/store.js';
import { ENGINES } from './engines.js';
import { ask, consumer, DAY, delivery, event, HOUR, message, MINUTE, proposal, request, T0 } from './records.js';
import { useEngine } from './use-engine.js';

const LEASE = 15_000;
const decision = (by: string) => ({ decided_by: by, note: null, reason: null, decided_at: T0 });

/** Requests and proposals in every status, some reached by updates and decisions after their insert. */
async function writeRequests(store: Store): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.requests.insert(request('req_1', { status: 'asked' }));
    await tx.requests.insert(request('req_2', { status: 'asked' }));
    await tx.requests.insert(request('req_3', { status: 'queued' }));
    await tx.requests.insert(request('req_4', { status: 'proposed', proposal_id: 'prop_4' }));
    await tx.proposals.insert(proposal('prop_4', 'req_4'));
    await tx.requests.insert(request('req_5', { status: 'proposed', proposal_id: 'prop_5' }));
    await tx.proposals.insert(proposal('prop_5', 'req_5'));
    await tx.requests.insert(request('req_6', { status: 'proposed', proposal_id: 'prop_6' }));
    await tx.proposals.insert(proposal('prop_6', 'req_6'));
  });
  await store.transaction(async (tx) => {
    await tx.requests.update('req_2', { status: 'escalated' });
    await tx.requests.update('req_3', { status: 'failed', reason: { code: 'timeout', message: 'No answer in time.' } });
    expect(await tx.proposals.decide('prop_5', 'accepted', decision('alice'))).toBe(true);
    await tx.requests.update('req_5', { status: 'accepted' });
    expect(await tx.proposals.decide('prop_6', 'rejected', decision('bob'))).toBe(true);
    await tx.requests.update('req_6', { status: 'rejected' });
  });
}

describe.each(ENGINES)('$name store: counts stay exact', (engine) => {
  const e = useEngine(engine);

  it('the metrics counts match what was written: requests by status, pending and dead outbox rows, pending proposals', async () => {
    await writeRequests(e.store);
    await e.store.transaction(async (tx) => {
      await tx.consumers.upsert(consumer('hook'));
      await tx.consumers.upsert(consumer('gone'));
      await tx.outbox.insertEvent(event('evt_5', 'req_5'));
      const created = { dlv_1: 0, dlv_2: 1, dlv_3: 2, dlv_4: 3, dlv_7: 4 };
      for (const [id, minutes] of Object.entries(created)) await tx.outbox.insertDelivery(delivery(id, 'evt_5', 'hook', 'req_5', { created_at: T0 - minutes * MINUTE }));
      await tx.outbox.insertDelivery(delivery('dlv_5', 'evt_5', 'gone', 'req_5', { created_at: T0 - HOUR }));
      await tx.outbox.insertDelivery(delivery('dlv_6', 'evt_5', 'gone', 'req_5', { created_at: T0 - HOUR }));
      const messages = { msg_1: 5, msg_2: 10, msg_3: 1, msg_4: 20, msg_5: 30, msg_6: 40 };
      for (const [id, minutes] of Object.entries(messages)) await tx.outbox.enqueueMessage(message(id, { request_id: 'req_1', created_at: T0 - minutes * MINUTE }));
    });

    // Claims leave rows pending; outcomes move them.
    const claimed = await e.store.transaction(async (tx) => ({
      messages: (await tx.outbox.claimMessages({ now: T0, owner: 'inst_a', leaseUntil: T0 + LEASE, limit: 10 })).length,
      deliveries: (await tx.outbox.claimDeliveries({ now: T0, owner: 'inst_a', leaseUntil: T0 + LEASE, limit: 10, perConsumer: 10, inFlight: {}, live: [] })).length,
    }));
    expect(claimed).toEqual({ messages: 6, deliveries: 7 });
    const dropped = await e.store.transaction(async (tx) => {
      await tx.outbox.markMessagesSent(['msg_4'], T0 + 1);
      expect(await tx.outbox.rescheduleMessage('msg_5', 'inst_a', 'no such user', null)).toBe(true);
      await tx.outbox.dropMessage('msg_6', 'the ask closed');
      expect(await tx.outbox.rescheduleMessage('msg_1', 'inst_a', 'timed out', T0 + HOUR)).toBe(true);
      await tx.outbox.finishDelivery('dlv_1', { state: 'delivered', at: T0 + 1, status: 200, error: null });
      await tx.outbox.finishDelivery('dlv_2', { state: 'dead', at: T0 + 1, status: 410, error: 'HTTP 410' });
      await tx.outbox.finishDelivery('dlv_3', { state: 'pending', at: T0 + 1, status: 503, error: 'HTTP 503', nextAttemptAt: T0 + HOUR });
      await tx.outbox.finishDelivery('dlv_7', { state: 'dead', at: T0 + 1, status: 500, error: 'HTTP 500' });
      await tx.outbox.retryDelivery('dlv_7', T0 + 2);
      return (await tx.outbox.dropPendingDeliveries('gone', T0 + 2)).map((d) => d.id).sort();
    });
    expect(dropped).toEqual(['dlv_5', 'dlv_6']);
    // A transaction that rolls back counts for nothing.
    const failure = new Error('rolled back');
    await expect(
      e.store.transaction(async (tx) => {
        await tx.requests.insert(request('req_gone', { status: 'queued' }));
        await tx.outbox.enqueueMessage(message('msg_gone', { created_at: T0 - DAY }));
        await tx.proposals.insert(proposal('prop_gone', 'req_gone'));
        throw failure;
      }),
    ).rejects.toBe(failure);

    const byStatus = await e.store.metrics.requestsByStatus();
    expect(Object.fromEntries(Object.entries(byStatus).filter(([, n]) => n > 0))).toEqual({
      asked: 1, escalated: 1, failed: 1, proposed: 1, accepted: 1, rejected: 1,
    });
    // Pending: msg_1 (rescheduled), msg_2 and msg_3 (claimed, untouched); dlv_3 (to retry), dlv_4 (claimed), dlv_7 (replayed).
    expect(await e.store.metrics.counts()).toEqual({
      pendingMessages: 3,
      oldestPendingMessageAt: T0 - 10 * MINUTE,
      pendingDeliveries: 3,
      oldestPendingDeliveryAt: T0 - 4 * MINUTE,
      deadDeliveries: 1,
      pendingProposals: 1,
    });
  });
});

const zero: ExpertLiveState = { muted: false, openAsks: 0, queuedAsks: 0, asksToday: 0, away: null };

describe.each(ENGINES)('$name store: experts’ live state', (engine) => {
  const e = useEngine(engine);
  const dayStart = T0 - 10 * HOUR;

  it('asks.expertStates counts open, queued and today’s asks per expert exactly, by ids and for every expert', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      const asks = [
        ask('ask_d1', 'req_1', 'dana', { sent_at: T0 - HOUR }),
        ask('ask_d2', 'req_1', 'dana', { sent_at: T0 - 30 * HOUR }), // open since yesterday
        ask('ask_d3', 'req_1', 'dana', { state: 'queued', sent_at: null, escalate_at: null }),
        ask('ask_d4', 'req_1', 'dana', { state: 'answered', sent_at: T0 - 2 * HOUR, closed_at: T0 - HOUR }),
        ask('ask_d5', 'req_1', 'dana', { state: 'answered', sent_at: T0 - 40 * HOUR, closed_at: T0 - 39 * HOUR }),
        ask('ask_d6', 'req_1', 'dana', { sent_at: T0 - 5 * MINUTE }),
        ask('ask_d7', 'req_1', 'dana', { state: 'queued', sent_at: null, escalate_at: null }),
        ask('ask_l1', 'req_1', 'lee', { state: 'queued', sent_at: null, escalate_at: null }),
        ask('ask_l2', 'req_1', 'lee', { state: 'queued', sent_at: null, escalate_at: null, send_after: T0 + HOUR }),
        ask('ask_l3', 'req_1', 'lee', { state: 'answered', sent_at: dayStart, closed_at: dayStart + 1 }),
        ask('ask_l4', 'req_1', 'lee', { state: 'answered', sent_at: dayStart - 1, closed_at: dayStart }),
        ask('ask_s1', 'req_1', 'sam', { state: 'answered', sent_at: T0 - 40 * HOUR, closed_at: T0 - 39 * HOUR }),
      ];
      for (const a of asks) await tx.asks.insert(a);
      await tx.asks.setMuted('lee', true, T0);
      await tx.asks.setMuted('kim', true, T0);
      await tx.asks.setMuted('ola', true, T0);
    });
    await e.store.transaction(async (tx) => {
      await tx.asks.update('ask_d6', { state: 'escalated', closed_at: T0 - MINUTE });
      await tx.asks.update('ask_d7', { state: 'open', sent_at: T0 - MINUTE, escalate_at: T0 + HOUR });
      await tx.asks.setMuted('kim', false, T0 + 1);
    });
    const dana = { ...zero, openAsks: 3, queuedAsks: 1, asksToday: 4 };
    const lee = { ...zero, muted: true, queuedAsks: 2, asksToday: 1 };
    const ola = { ...zero, muted: true };

    expect(await e.store.asks.expertStates(['dana', 'lee', 'sam', 'kim', 'nobody'], dayStart)).toEqual(
      new Map([['dana', dana], ['lee', lee], ['sam', zero], ['kim', zero], ['nobody', zero]]),
    );
    const every = await e.store.asks.expertStates(null, dayStart);
    const live = [...every].filter(([, s]) => s.muted || s.openAsks > 0 || s.queuedAsks > 0 || s.asksToday > 0);
    expect(Object.fromEntries(live)).toEqual({ dana, lee, ola });
    // Experts with nothing live may be listed or not, but only with nothing.
    for (const [id, state] of every) if (!['dana', 'lee', 'ola'].includes(id)) expect([id, state]).toEqual([id, zero]);
    expect(await e.store.asks.isMuted('lee')).toBe(true);
    expect(await e.store.asks.isMuted('kim')).toBe(false);
    expect(await e.store.asks.isMuted('nobody')).toBe(false);
    // The same answers inside a transaction.
    expect(await e.store.transaction((tx) => tx.asks.expertStates(['dana'], dayStart))).toEqual(new Map([['dana', dana]]));
  });

  it('asks.expertStates counts today from each expert’s own day start where one is given', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      for (const [id, expert, at] of [['a1', 'dana', dayStart - HOUR], ['a2', 'dana', dayStart + HOUR], ['a3', 'lee', dayStart - HOUR], ['a4', 'lee', dayStart + HOUR]] as const) {
        await tx.asks.insert(ask(id, 'req_1', expert, { state: 'answered', sent_at: at, closed_at: at + 1 }));
      }
    });
    // Lee's day began two hours before everyone else's (another time zone): both his asks are today's.
    const own = new Map([['lee', dayStart - 2 * HOUR]]);
    const counts = (m: Map<string, ExpertLiveState>) => Object.fromEntries([...m].filter(([id]) => id === 'dana' || id === 'lee').map(([id, s]) => [id, s.asksToday]));
    expect(counts(await e.store.asks.expertStates(['dana', 'lee'], dayStart, own))).toEqual({ dana: 1, lee: 2 });
    expect(counts(await e.store.asks.expertStates(null, dayStart, own))).toEqual({ dana: 1, lee: 2 });
    expect(counts(await e.store.transaction((tx) => tx.asks.expertStates(['lee', 'dana'], dayStart, own)))).toEqual({ dana: 1, lee: 2 });
    expect(counts(await e.store.asks.expertStates(null, dayStart))).toEqual({ dana: 1, lee: 1 });
  });

  it('inside a transaction, a state read again reflects the asks, updates and mutes the transaction wrote in between', async () => {
    const seen = await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      const states = [await tx.asks.expertStates(['dana', 'lee'], dayStart)];
      await tx.asks.insert(ask('ask_1', 'req_1', 'dana', { sent_at: T0 }));
      await tx.asks.insert(ask('ask_2', 'req_1', 'lee', { state: 'queued', sent_at: null, escalate_at: null }));
      states.push(await tx.asks.expertStates(['dana', 'lee'], dayStart));
      await tx.asks.update('ask_1', { state: 'answered', closed_at: T0 + 1 });
      await tx.asks.setMuted('lee', true, T0);
      states.push(await tx.asks.expertStates(['lee', 'dana'], dayStart));
      // Another day's count: today's asks start again from that day.
      states.push(await tx.asks.expertStates(['dana'], T0 + HOUR));
      return states.map((m) => Object.fromEntries(m));
    });
    expect(seen).toEqual([
      { dana: zero, lee: zero },
      { dana: { ...zero, openAsks: 1, asksToday: 1 }, lee: { ...zero, queuedAsks: 1 } },
      { dana: { ...zero, asksToday: 1 }, lee: { ...zero, muted: true, queuedAsks: 1 } },
      { dana: zero },
    ]);
  });
});
