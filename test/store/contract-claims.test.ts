import { describe, expect, it } from 'vitest';
import type { DeliveryClaim, Store } from '../../src/store/store.js';
import { ENGINES } from './engines.js';
import { consumer, delivery, event, HOUR, llmJob, message, MINUTE, request, T0 } from './records.js';
import { useEngine } from './use-engine.js';

/**
 * Leased work shared by two processes: each test opens a second store on the same database (`b`)
 * beside the first (`a`), as two expertq instances would be.
 */

const LEASE = 15_000;
const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

const claimMessages = async (store: Store, owner: string, now: number, limit = 10) =>
  ids(await store.transaction((tx) => tx.outbox.claimMessages({ now, owner, leaseUntil: now + LEASE, limit })));

const claimDeliveries = async (store: Store, owner: string, now: number, options: Partial<DeliveryClaim> = {}) =>
  ids(await store.transaction((tx) => tx.outbox.claimDeliveries({ now, owner, leaseUntil: now + LEASE, limit: 10, perConsumer: 10, inFlight: {}, live: [], ...options })));

const claimJobs = (store: Store, owner: string, now: number, exclude: string[] = []) =>
  store.transaction((tx) => tx.llmJobs.claim({ now, owner, leaseUntil: now + LEASE, limit: 10, exclude }));

describe.each(ENGINES)('$name store: claims and lease expiry across two processes', (engine) => {
  const e = useEngine(engine);

  it('messages: leased to one owner until the lease ends; only the holder renews or reschedules', async () => {
    const a = e.store;
    const b = await e.another();
    await a.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      await tx.outbox.enqueueMessage(message('msg_2', { request_id: 'req_1' }));
      await tx.outbox.enqueueMessage(message('msg_1', { request_id: 'req_1' }));
      await tx.outbox.enqueueMessage(message('msg_3', { request_id: 'req_1', next_attempt_at: T0 - MINUTE }));
      await tx.outbox.enqueueMessage(message('msg_later', { request_id: 'req_1', next_attempt_at: T0 + HOUR }));
      await tx.outbox.enqueueMessage(message('msg_sent', { request_id: 'req_1', state: 'sent', sent_at: T0 - HOUR, attempts: 1 }));
    });

    // Oldest due first, `limit` at a time; nothing not yet due, nothing already sent.
    expect(await claimMessages(a, 'inst_a', T0, 2)).toEqual(['msg_3', 'msg_1']);
    expect(await claimMessages(a, 'inst_a', T0)).toEqual(['msg_2']);
    expect(await claimMessages(b, 'inst_b', T0 + LEASE - 1)).toEqual([]);

    // a keeps two of them; b, not holding msg_2, cannot renew it; then msg_2's lease lapses and b takes it.
    expect(await a.transaction((tx) => tx.outbox.renewLeases('message', ['msg_1', 'msg_3'], 'inst_a', T0 + 3 * LEASE))).toBe(2);
    expect(await b.transaction((tx) => tx.outbox.renewLeases('message', ['msg_2'], 'inst_b', T0 + 3 * LEASE))).toBe(0);
    expect(await claimMessages(b, 'inst_b', T0 + LEASE)).toEqual(['msg_2']);

    // a's late renewal and late failure change nothing of what b now holds; b's failure reschedules it.
    expect(await a.transaction((tx) => tx.outbox.renewLeases('message', ['msg_2'], 'inst_a', T0 + 9 * LEASE))).toBe(0);
    expect(await a.transaction((tx) => tx.outbox.rescheduleMessage('msg_2', 'inst_a', 'timed out', T0 + LEASE))).toBe(false);
    expect(await b.transaction((tx) => tx.outbox.rescheduleMessage('msg_2', 'inst_b', 'refused', T0 + 10 * LEASE))).toBe(true);
    const msg2 = (await a.outbox.messages('req_1')).find((m) => m.id === 'msg_2');
    expect(msg2).toMatchObject({ state: 'pending', last_error: 'refused', next_attempt_at: T0 + 10 * LEASE });

    // a's renewed leases still hold; msg_2 is not due again yet.
    expect(await claimMessages(b, 'inst_b', T0 + 3 * LEASE - 1)).toEqual([]);
    await a.transaction((tx) => tx.outbox.markMessagesSent(['msg_3'], T0 + LEASE));
    expect(await a.transaction((tx) => tx.outbox.rescheduleMessage('msg_1', 'inst_a', 'gone', null))).toBe(true);
    expect(await claimMessages(b, 'inst_b', T0 + HOUR)).toEqual(['msg_2', 'msg_later']);

    const states = Object.fromEntries((await b.outbox.messages('req_1')).map((m) => [m.id, m.state]));
    expect(states).toEqual({ msg_1: 'dead', msg_2: 'pending', msg_3: 'sent', msg_later: 'pending', msg_sent: 'sent' });
    expect((await b.metrics.counts()).pendingMessages).toBe(2);
  });

  it('messages written with a lease: nobody claims them before it ends; its holder renews, records or loses them like claimed ones', async () => {
    const a = e.store;
    const b = await e.another();
    await a.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      await tx.outbox.enqueueMessage(message('msg_leased', { request_id: 'req_1' }), { owner: 'inst_a', leaseUntil: T0 + LEASE });
      await tx.outbox.enqueueMessage(message('msg_sent_by_a', { request_id: 'req_1' }), { owner: 'inst_a', leaseUntil: T0 + LEASE });
      await tx.outbox.enqueueMessage(message('msg_free', { request_id: 'req_1' }));
    });
    expect(await claimMessages(b, 'inst_b', T0)).toEqual(['msg_free']);
    expect(await b.transaction((tx) => tx.outbox.renewLeases('message', ['msg_leased'], 'inst_b', T0 + 2 * LEASE))).toBe(0);
    expect(await a.transaction((tx) => tx.outbox.renewLeases('message', ['msg_sent_by_a'], 'inst_a', T0 + 3 * LEASE))).toBe(1);
    await a.transaction((tx) => tx.outbox.markMessagesSent(['msg_sent_by_a'], T0 + 1));
    // a died holding msg_leased: once its lease ends, the next claim takes it (with msg_free, whose
    // lease from b's first claim ended at the same moment).
    expect(await claimMessages(b, 'inst_b', T0 + LEASE - 1)).toEqual([]);
    expect(await claimMessages(b, 'inst_b', T0 + LEASE)).toEqual(['msg_free', 'msg_leased']);
    const states = Object.fromEntries((await b.outbox.messages('req_1')).map((m) => [m.id, m.state]));
    expect(states).toEqual({ msg_free: 'pending', msg_leased: 'pending', msg_sent_by_a: 'sent' });
  });

  it('deliveries: per consumer at most perConsumer minus its in-flight ones, in-process ones only when live, leased like messages', async () => {
    const a = e.store;
    const b = await e.another();
    const evt = event('evt_1', 'req_1');
    await a.transaction(async (tx) => {
      await tx.consumers.upsert(consumer('hook_a'));
      await tx.consumers.upsert(consumer('hook_b'));
      await tx.consumers.upsert(consumer('sdk', { delivery: { type: 'in_process' }, secret: null }));
      await tx.requests.insert(request('req_1'));
      await tx.outbox.insertEvent(evt);
      for (const id of ['dlv_a1', 'dlv_a2', 'dlv_a3', 'dlv_a4']) await tx.outbox.insertDelivery(delivery(id, 'evt_1', 'hook_a', 'req_1'));
      await tx.outbox.insertDelivery(delivery('dlv_b1', 'evt_1', 'hook_b', 'req_1'));
      await tx.outbox.insertDelivery(delivery('dlv_b_later', 'evt_1', 'hook_b', 'req_1', { next_attempt_at: T0 + HOUR }));
      await tx.outbox.insertDelivery(delivery('dlv_s1', 'evt_1', 'sdk', 'req_1'));
    });

    // hook_a already has one in flight: one more of it; the in-process consumer is not live here.
    const first = await a.transaction((tx) =>
      tx.outbox.claimDeliveries({ now: T0, owner: 'inst_a', leaseUntil: T0 + LEASE, limit: 10, perConsumer: 2, inFlight: { hook_a: 1 }, live: [] }),
    );
    expect(ids(first)).toEqual(['dlv_a1', 'dlv_b1']);
    expect(first[0]).toMatchObject({ event_id: 'evt_1', consumer_id: 'hook_a', event_type: 'proposal_accepted' });
    expect(JSON.parse(first[0]!.body)).toEqual(evt.body);
    expect(await claimDeliveries(a, 'inst_a', T0, { perConsumer: 2, inFlight: { hook_a: 1, hook_b: 1 }, live: ['sdk'] })).toEqual(['dlv_a2', 'dlv_s1']);

    // b takes only what nobody holds, then nothing more.
    expect(await claimDeliveries(b, 'inst_b', T0 + LEASE - 1, { live: ['sdk'] })).toEqual(['dlv_a3', 'dlv_a4']);
    expect(await claimDeliveries(b, 'inst_b', T0 + LEASE - 1, { live: ['sdk'] })).toEqual([]);

    // a renews what it holds (not dlv_a3, b's), delivers one and fails another, due again later.
    expect(await a.transaction((tx) => tx.outbox.renewLeases('delivery', ['dlv_a1', 'dlv_a2', 'dlv_b1', 'dlv_s1', 'dlv_a3'], 'inst_a', T0 + 5 * LEASE))).toBe(4);
    await a.transaction(async (tx) => {
      await tx.outbox.finishDelivery('dlv_b1', { state: 'delivered', at: T0 + 1_000, status: 200, error: null });
      await tx.outbox.finishDelivery('dlv_a1', { state: 'pending', at: T0 + 1_000, status: 503, error: 'HTTP 503', nextAttemptAt: T0 + 2 * LEASE });
    });
    expect(await a.outbox.getDelivery('dlv_b1')).toMatchObject({ state: 'delivered', delivered_at: T0 + 1_000, last_status: 200 });

    // b's own leases lapsed and the failed one is due again; a's renewed ones are still a's.
    expect(await claimDeliveries(b, 'inst_b', T0 + 2 * LEASE, { live: ['sdk'] })).toEqual(['dlv_a3', 'dlv_a4', 'dlv_a1']);
    expect(await claimDeliveries(a, 'inst_a', T0 + 2 * LEASE, { live: ['sdk'] })).toEqual([]);
    // Once every lease has lapsed, everything pending and due is anyone's.
    expect(await claimDeliveries(b, 'inst_b', T0 + 5 * LEASE, { live: ['sdk'] })).toEqual(['dlv_a2', 'dlv_a3', 'dlv_a4', 'dlv_s1', 'dlv_a1']);
  });

  it('LLM jobs: leased like messages, counted up per claim; a released job is claimable at once; late results are refused', async () => {
    const a = e.store;
    const b = await e.another();
    await a.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      await tx.llmJobs.insert(llmJob('job_2', 'req_1', { created_at: T0 + 1 }));
      await tx.llmJobs.insert(llmJob('job_1', 'req_1', { created_at: T0 }));
      await tx.llmJobs.insert(llmJob('job_4', 'req_1', { stage: 'draft', deadline_at: T0 + HOUR, created_at: T0 + 2 }));
      // A draft past its deadline falls back without a call; a finished job is done.
      await tx.llmJobs.insert(llmJob('job_3', 'req_1', { stage: 'draft', deadline_at: T0 - 1, created_at: T0 - HOUR }));
      await tx.llmJobs.insert(llmJob('job_done', 'req_1', { state: 'done', finished_at: T0 - HOUR, created_at: T0 - 2 * HOUR }));
    });

    const first = await claimJobs(a, 'inst_a', T0);
    expect(ids(first)).toEqual(['job_1', 'job_2', 'job_4']);
    expect(first.map((j) => j.attempts)).toEqual([1, 1, 1]);
    expect(ids(await a.llmJobs.expiredDrafts(T0, 10))).toEqual(['job_3']);
    expect(await claimJobs(b, 'inst_b', T0 + LEASE - 1)).toEqual([]);

    // Only the holder releases; a released job is b's to run at once.
    await b.transaction((tx) => tx.llmJobs.release('job_1', 'inst_b'));
    expect(await claimJobs(b, 'inst_b', T0 + LEASE - 1)).toEqual([]);
    await a.transaction((tx) => tx.llmJobs.release('job_1', 'inst_a'));
    const released = await claimJobs(b, 'inst_b', T0 + LEASE - 1);
    expect(released.map((j) => [j.id, j.attempts])).toEqual([['job_1', 2]]);

    expect(await a.transaction((tx) => tx.llmJobs.renewLeases(['job_1', 'job_2'], 'inst_a', T0 + 3 * LEASE))).toBe(1);
    // job_4's lease lapsed; job_1 (b's own, lapsed) is left out as b asks.
    expect(ids(await claimJobs(b, 'inst_b', T0 + 2 * LEASE, ['job_1']))).toEqual(['job_4']);

    expect(await a.transaction((tx) => tx.llmJobs.finish('job_2', T0 + 2 * LEASE))).toBe(true);
    expect(await b.transaction((tx) => tx.llmJobs.finish('job_2', T0 + 2 * LEASE + 1))).toBe(false);
    expect(await b.llmJobs.get('job_2')).toMatchObject({ state: 'done', finished_at: T0 + 2 * LEASE });
    expect(ids(await claimJobs(a, 'inst_a', T0 + 3 * LEASE))).toEqual(['job_1', 'job_4']);
  });
});
