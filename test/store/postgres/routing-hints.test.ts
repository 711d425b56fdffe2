import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StaleHints } from '../../../src/store/errors.js';
import { openPgStore, type PgStore } from '../../../src/store/postgres/pg-store.js';
import { buildTestApp, submitBody, type TestApp } from '../../support/build-test-app.js';
import { createTestDatabase, dropTestDatabase } from '../engines.js';
import { ask, request, T0 } from '../records.js';

/**
 * Two instances on one PostgreSQL database. Each weighs the candidates of a submit on the states it
 * read a moment ago (hints), and locks and reads again only the experts it asks: whatever another
 * instance did meanwhile, no cap is passed and no muted expert is asked. The hints here are kept a
 * minute, so the second instance's are certainly stale when it routes.
 */
describe('routing on hints with two instances', () => {
  const name = `eq_hints_${process.pid}`;
  let apps: Array<TestApp<PgStore>> = [];
  const policy = { max_open_asks_per_expert: 1 };

  beforeEach(async () => {
    const url = await createTestDatabase(name);
    for (let i = 0; i < 2; i++) apps.push(await buildTestApp({ openStore: () => openPgStore({ url, poolSize: 3, hintMs: 60_000 }) }));
  });
  afterEach(async () => {
    for (const app of apps) await app.close();
    apps = [];
    await dropTestDatabase(name);
  });

  const openAsks = async (app: TestApp<PgStore>) =>
    Object.fromEntries(((await app.call('GET', '/api/v1/experts')).body as Array<{ id: string; open_asks: number }>).map((e) => [e.id, e.open_asks]));
  const statusOf = async (app: TestApp<PgStore>, id: string) => (await app.call('GET', `/api/v1/requests/${id}`)).body.status as string;

  it('an instance whose hint says an expert has room does not ask them past a cap another instance filled', async () => {
    const [a, b] = apps as [TestApp<PgStore>, TestApp<PgStore>];
    // b routes billing to Dana, and has read Lee (the other billing expert) with no open asks.
    const first = await b.call('POST', '/api/v1/requests', submitBody({ routing_policy: policy }));
    expect(await statusOf(b, first.body.request_id)).toBe('asked');
    // a asks Lee, who takes payments alone: Lee is at the cap of one open ask.
    const payments = await a.call('POST', '/api/v1/requests', submitBody({ topic: 'payments', question: 'Refund window?', routing_policy: policy }));
    expect(await statusOf(a, payments.body.request_id)).toBe('asked');

    const second = await b.call('POST', '/api/v1/requests', submitBody({ question: 'Late fee?', routing_policy: policy }));

    expect(second.status).toBe(200);
    expect(await statusOf(b, second.body.request_id)).toBe('queued');
    expect(await openAsks(a)).toMatchObject({ dana: 1, lee: 1 });
    expect(b.messages()).toHaveLength(1);
  });

  it('an ask placed on a stale hint is checked even when the same batch reads that expert under lock afterwards', async () => {
    const [a, b] = apps as [TestApp<PgStore>, TestApp<PgStore>];
    await b.call('POST', '/api/v1/requests', submitBody({ routing_policy: policy }));
    await a.call('POST', '/api/v1/requests', submitBody({ topic: 'payments', question: 'Refund window?', routing_policy: policy }));

    // One batch on b: the first goes to Lee on b's hint; the second lists Lee, so Lee is read under lock.
    const [first, second] = await Promise.all([
      b.call('POST', '/api/v1/requests', submitBody({ question: 'Late fee?', routing_policy: policy })),
      b.call('POST', '/api/v1/requests', submitBody({ question: 'Dispute window?', target_experts: ['lee'], routing_policy: policy })),
    ]);

    expect(await statusOf(b, first.body.request_id)).toBe('queued');
    expect(await statusOf(b, second.body.request_id)).toBe('queued');
    expect(await openAsks(a)).toMatchObject({ dana: 1, lee: 1 });
  });

  it('an instance whose hint says an expert is free does not ask them once another instance muted them', async () => {
    const [a, b] = apps as [TestApp<PgStore>, TestApp<PgStore>];
    // b asks Dana (billing), then Lee (payments): one open ask each, so Dana, first in the registry, is next for billing.
    await b.call('POST', '/api/v1/requests', submitBody());
    await b.call('POST', '/api/v1/requests', submitBody({ topic: 'payments', question: 'Refund window?' }));
    // Muted through a's store alone, so nothing tells b (an instance hears of some changes and reads again).
    await a.store.transaction((tx) => tx.asks.setMuted('dana', true, a.clock.now()));

    const third = await b.call('POST', '/api/v1/requests', submitBody({ question: 'Late fee?' }));

    expect(await statusOf(b, third.body.request_id)).toBe('asked');
    expect(await openAsks(a)).toMatchObject({ dana: 1, lee: 2 });
    expect(b.messages().filter((m) => m.includes('(lee)'))).toHaveLength(2);
  });

  it('an instance whose hint says an expert is free asks them while another instance’s spell for them has ended, and not once one is in force', async () => {
    const [a, b] = apps as [TestApp<PgStore>, TestApp<PgStore>];
    await b.call('POST', '/api/v1/requests', submitBody());
    await b.call('POST', '/api/v1/requests', submitBody({ topic: 'payments', question: 'Refund window?' }));
    const away = (until: number) => ({ until, delegate_to: null, note: null, set_by: 'dana', set_at: a.clock.now() });
    // A spell whose end has passed, not yet cleared, no longer keeps Dana from being asked.
    await a.store.transaction((tx) => tx.asks.setAway('dana', away(b.clock.now()), a.clock.now()));
    await b.call('POST', '/api/v1/requests', submitBody({ question: 'Late fee?' }));
    expect(await openAsks(a)).toMatchObject({ dana: 2, lee: 1 });

    await b.call('POST', '/api/v1/requests', submitBody({ topic: 'payments', question: 'Chargeback window?' }));
    await a.store.transaction((tx) => tx.asks.setAway('dana', away(a.clock.now() + 3_600_000), a.clock.now()));
    await b.call('POST', '/api/v1/requests', submitBody({ question: 'Dispute window?' }));
    expect(await openAsks(a)).toMatchObject({ dana: 2, lee: 3 });
  });
});

describe('an instance’s hints', () => {
  const name = `eq_hints_own_${process.pid}`;
  let store: PgStore | null = null;

  afterEach(async () => {
    await store?.close();
    store = null;
    await dropTestDatabase(name);
  });

  it('count a transaction’s own asks once it commits, and never those of one rolled back', async () => {
    store = await openPgStore({ url: await createTestDatabase(name), poolSize: 2, hintMs: 60_000 });
    await store.transaction((tx) => tx.requests.insert(request('req_0')));
    const openOfBen = () =>
      store!.transaction(async (tx) => {
        tx.asks.useHints();
        return (await tx.asks.expertStates(['ben'], T0)).get('ben')!.openAsks;
      });
    expect(await openOfBen()).toBe(0);

    const placing = store.transaction(async (tx) => {
      tx.asks.useHints();
      await tx.asks.expertStates(['ben'], T0);
      await tx.asks.insert(ask('ask_0', 'req_0', 'ben', { state: 'open', sent_at: T0 }));
      throw new Error('changed its mind');
    });
    await expect(placing).rejects.toThrow('changed its mind');
    expect(await openOfBen()).toBe(0);

    await store.transaction(async (tx) => {
      tx.asks.useHints();
      await tx.asks.expertStates(['ben'], T0);
      await tx.asks.insert(ask('ask_1', 'req_0', 'ben', { state: 'open', sent_at: T0 }));
      await tx.asks.expertStates(['ben'], T0, undefined, true);
    });
    expect(await openOfBen()).toBe(1);
  });

  it('a decision the check at commit finds no longer holding rolls the whole transaction back, naming the experts', async () => {
    store = await openPgStore({ url: await createTestDatabase(name), poolSize: 2, hintMs: 60_000 });
    const outcome = await store
      .transaction(async (tx) => {
        await tx.requests.insert(request('req_1'));
        await tx.asks.insert(ask('ask_1', 'req_1', 'Ben "B" Smith', { state: 'open', sent_at: T0 }));
        await tx.asks.insert(ask('ask_2', 'req_1', 'lee', { state: 'open', sent_at: T0 }));
        // Both were sent under a cap of one open ask: Ben's own ask fits, Ben's second one does not.
        await tx.asks.insert(ask('ask_3', 'req_1', 'Ben "B" Smith', { state: 'open', sent_at: T0 }));
        const checks = ['Ben "B" Smith', 'lee'].map((expertId) => ({ expertId, dayStart: T0, maxOpenAsks: 1, maxAsksToday: null }));
        tx.asks.checkAtCommit(checks, T0);
      })
      .catch((caught: unknown) => caught);

    expect(outcome).toBeInstanceOf(StaleHints);
    expect((outcome as StaleHints).experts).toEqual(['Ben "B" Smith']);
    expect(await store.requests.get('req_1')).toBeUndefined();
  });
});
