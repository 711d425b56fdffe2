import { describe, expect, it } from 'vitest';
import type { AskRecord, RequestRecord } from '../../src/domain/records.js';
import type { DueCursor, Store } from '../../src/store/store.js';
import { ENGINES } from './engines.js';
import { ask, HOUR, MINUTE, proposal, request, T0 } from './records.js';
import { useEngine } from './use-engine.js';

/** Every page of a keyset scan, resuming each after the last row of the one before, until a short page. */
async function allPages<R>(page: (after: DueCursor | null) => Promise<R[]>, cursor: (row: R) => DueCursor, limit: number): Promise<R[][]> {
  const pages: R[][] = [];
  let after: DueCursor | null = null;
  for (;;) {
    const rows = await page(after);
    pages.push(rows);
    if (rows.length < limit) return pages;
    after = cursor(rows[rows.length - 1]!);
  }
}

const insertRequests = (store: Store, requests: RequestRecord[]) =>
  store.transaction(async (tx) => {
    for (const r of requests) await tx.requests.insert(r);
  });

describe.each(ENGINES)('$name store: deduplication window', (engine) => {
  const e = useEngine(engine);

  it('finds the newest request with the key created at or after the window start, nothing before it, nothing for another key', async () => {
    // Ids sort the other way from creation times, and rows go in out of order: only created_at decides "newest".
    await insertRequests(e.store, [
      request('req_b', { dedup_key: 'order-7', created_at: T0 }),
      request('req_a', { dedup_key: 'order-7', created_at: T0 + 5 * MINUTE }),
      request('req_c', { dedup_key: 'order-7', created_at: T0 - 10 * MINUTE }),
      request('req_d', { dedup_key: 'order-8', created_at: T0 + 20 * MINUTE }),
      request('req_e', { dedup_key: null, created_at: T0 + 30 * MINUTE }),
    ]);
    const found = async (key: string, since: number) => (await e.store.requests.findByDedupKey(key, since))?.id;

    expect(await found('order-7', T0 - HOUR)).toBe('req_a');
    expect(await found('order-7', T0)).toBe('req_a');
    expect(await found('order-7', T0 + 5 * MINUTE)).toBe('req_a');
    expect(await found('order-7', T0 + 5 * MINUTE + 1)).toBeUndefined();
    expect(await found('order-8', T0)).toBe('req_d');
    expect(await found('order-9', 0)).toBeUndefined();
    expect(await e.store.requests.findByDedupKey('order-7', T0)).toEqual(request('req_a', { dedup_key: 'order-7', created_at: T0 + 5 * MINUTE }));
  });

  it('a transaction finds the request it inserted itself under that key', async () => {
    const seen = await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_new', { dedup_key: 'order-7' }));
      return (await tx.requests.findByDedupKey('order-7', T0))?.id;
    });
    expect(seen).toBe('req_new');
  });
});

describe.each(ENGINES)('$name store: due work, paged by (deadline, id)', (engine) => {
  const e = useEngine(engine);

  it('requests.dueGiveUps: open requests past their give-up time, in pages that resume exactly after the last row', async () => {
    await insertRequests(e.store, [
      request('req_d', { status: 'asked', give_up_at: T0 - HOUR }),
      request('req_e', { status: 'escalated', give_up_at: T0 - 30 * MINUTE }),
      request('req_a', { status: 'queued', give_up_at: T0 - HOUR }),
      request('req_c', { status: 'asked', held: true, give_up_at: T0 - HOUR }),
      request('req_b', { status: 'asked', give_up_at: T0 - 2 * HOUR }),
      // Not due: a future deadline, finished requests, a request whose answer waits for review.
      request('req_future', { status: 'asked', give_up_at: T0 + HOUR }),
      request('req_accepted', { status: 'accepted', give_up_at: T0 - 3 * HOUR }),
      request('req_rejected', { status: 'rejected', give_up_at: T0 - 3 * HOUR }),
      request('req_failed', { status: 'failed', give_up_at: T0 - 3 * HOUR }),
    ]);
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_proposed', { status: 'asked', give_up_at: T0 - 3 * HOUR }));
      await tx.proposals.insert(proposal('prop_1', 'req_proposed'));
      await tx.requests.update('req_proposed', { status: 'proposed', proposal_id: 'prop_1' });
    });
    const due = (after: DueCursor | null, limit: number) => e.store.requests.dueGiveUps(T0, after, limit);
    const expected = [
      { id: 'req_b', give_up_at: T0 - 2 * HOUR },
      { id: 'req_a', give_up_at: T0 - HOUR },
      { id: 'req_c', give_up_at: T0 - HOUR },
      { id: 'req_d', give_up_at: T0 - HOUR },
      { id: 'req_e', give_up_at: T0 - 30 * MINUTE },
    ];

    expect((await due(null, 10)).map(({ id, give_up_at }) => ({ id, give_up_at }))).toEqual(expected);
    const pages = await allPages((after) => due(after, 2), (r) => ({ at: r.give_up_at, id: r.id }), 2);
    expect(pages.map((p) => p.map((r) => r.id))).toEqual([['req_b', 'req_a'], ['req_c', 'req_d'], ['req_e']]);
    // Resuming inside a run of equal deadlines: the ones after that id, then the later deadlines.
    expect((await due({ at: T0 - HOUR, id: 'req_a' }, 10)).map((r) => r.id)).toEqual(['req_c', 'req_d', 'req_e']);
    expect((await due({ at: T0 - HOUR, id: 'req_d' }, 1)).map((r) => r.id)).toEqual(['req_e']);
    expect(await due({ at: T0 - 30 * MINUTE, id: 'req_e' }, 10)).toEqual([]);
    // Later, the future deadline has passed too.
    expect((await e.store.requests.dueGiveUps(T0 + HOUR, { at: T0 - 30 * MINUTE, id: 'req_e' }, 10)).map((r) => r.id)).toEqual(['req_future']);
  });

  it('asks.dueEscalations: open asks past their escalation time, in pages that resume exactly after the last row', async () => {
    const asks: AskRecord[] = [
      ask('ask_m', 'req_1', 'dana', { escalate_at: T0 - HOUR }),
      ask('ask_z', 'req_1', 'lee', { escalate_at: T0 - MINUTE }),
      ask('ask_k', 'req_1', 'sam', { escalate_at: T0 - HOUR }),
      ask('ask_x', 'req_1', 'kim', { escalate_at: T0 - 2 * HOUR }),
      ask('ask_n', 'req_1', 'ola', { escalate_at: T0 - HOUR }),
      // Not due: a future time, no escalation, asks no longer open.
      ask('ask_future', 'req_1', 'dana', { escalate_at: T0 + HOUR }),
      ask('ask_never', 'req_1', 'dana', { escalate_at: null }),
      ask('ask_answered', 'req_1', 'dana', { state: 'answered', escalate_at: T0 - 3 * HOUR, closed_at: T0 - 3 * HOUR }),
      ask('ask_escalated', 'req_1', 'dana', { state: 'escalated', escalate_at: T0 - 3 * HOUR, closed_at: T0 - 3 * HOUR }),
      ask('ask_released', 'req_1', 'dana', { state: 'released', escalate_at: T0 - 3 * HOUR, closed_at: T0 - 3 * HOUR }),
      ask('ask_queued', 'req_1', 'dana', { state: 'queued', sent_at: null, escalate_at: T0 - 3 * HOUR }),
    ];
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      for (const a of asks) await tx.asks.insert(a);
    });
    const due = (after: DueCursor | null, limit: number) => e.store.asks.dueEscalations(T0, after, limit);

    expect((await due(null, 10)).map((a) => a.id)).toEqual(['ask_x', 'ask_k', 'ask_m', 'ask_n', 'ask_z']);
    expect((await due(null, 1))[0]).toEqual(asks[3]);
    const pages = await allPages((after) => due(after, 2), (a) => ({ at: a.escalate_at!, id: a.id }), 2);
    expect(pages.map((p) => p.map((a) => a.id))).toEqual([['ask_x', 'ask_k'], ['ask_m', 'ask_n'], ['ask_z']]);
    expect((await due({ at: T0 - HOUR, id: 'ask_k' }, 2)).map((a) => a.id)).toEqual(['ask_m', 'ask_n']);
    expect((await due({ at: T0 - HOUR, id: 'ask_n' }, 2)).map((a) => a.id)).toEqual(['ask_z']);
    expect(await due({ at: T0 - MINUTE, id: 'ask_z' }, 10)).toEqual([]);
  });
});
