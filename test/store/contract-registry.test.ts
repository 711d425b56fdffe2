import { describe, expect, it } from 'vitest';
import { ENGINES } from './engines.js';
import { ask, consumer, HOUR, request, T0 } from './records.js';
import { useEngine } from './use-engine.js';

/** The aggregates that need no request: consumers, chat event ids and message refs, service state. */
describe.each(ENGINES)('$name store: consumers, chat records and service state', (engine) => {
  const e = useEngine(engine);

  it('consumers: registering again updates in place and keeps the registration order; deleting says whether there was one', async () => {
    await e.store.transaction(async (tx) => {
      await tx.consumers.upsert(consumer('zeta'));
      await tx.consumers.upsert(consumer('alpha'));
      await tx.consumers.upsert(consumer('early', { created_at: T0 - HOUR, updated_at: T0 - HOUR }));
    });
    const changed = consumer('zeta', { handles_kinds: ['answer', 'fact'], delivery: { type: 'in_process' }, secret: null, auto_accept: true, kind_schemas: { fact: { type: 'object' } }, updated_at: T0 + HOUR });
    await e.store.transaction((tx) => tx.consumers.upsert(changed));

    expect((await e.store.consumers.list()).map((c) => c.id)).toEqual(['early', 'zeta', 'alpha']);
    expect(await e.store.consumers.get('zeta')).toEqual(changed);
    expect(await e.store.transaction((tx) => tx.consumers.delete('alpha'))).toBe(true);
    expect(await e.store.transaction((tx) => tx.consumers.delete('alpha'))).toBe(false);
    expect(await e.store.consumers.get('alpha')).toBeUndefined();
  });

  it('chat events: an event id is recorded once; recording it again, from another process too, says it already was', async () => {
    const b = await e.another();
    expect(await e.store.transaction((tx) => tx.chat.markEvent('Ev01', T0))).toBe(true);
    expect(await e.store.transaction((tx) => tx.chat.markEvent('Ev01', T0 + 1))).toBe(false);
    expect(await b.transaction((tx) => tx.chat.markEvent('Ev01', T0 + 2))).toBe(false);
    const racing = await Promise.all([e.store, b, e.store, b].map((s) => s.transaction((tx) => tx.chat.markEvent('Ev02', T0))));
    expect(racing.filter((first) => first)).toHaveLength(1);
  });

  it('chat refs: posting an ask again moves its ref; a message re-used by another ask now belongs to that ask', async () => {
    await e.store.transaction(async (tx) => {
      await tx.chat.setRef('ask_1', { channel: 'D1', ts: '100.1' });
      await tx.chat.setRef('ask_2', { channel: 'D1', ts: '100.2', thread_ts: '100.1' });
    });
    expect(await e.store.chat.ref('ask_1')).toEqual({ channel: 'D1', ts: '100.1', thread_ts: null });
    expect(await e.store.chat.ref('ask_2')).toEqual({ channel: 'D1', ts: '100.2', thread_ts: '100.1' });

    await e.store.transaction((tx) => tx.chat.setRef('ask_1', { channel: 'D2', ts: '200.1' }));
    expect(await e.store.chat.ref('ask_1')).toEqual({ channel: 'D2', ts: '200.1', thread_ts: null });

    await e.store.transaction((tx) => tx.chat.setRef('ask_3', { channel: 'D2', ts: '200.1' }));
    expect(await e.store.chat.ref('ask_3')).toEqual({ channel: 'D2', ts: '200.1', thread_ts: null });
    expect(await e.store.chat.ref('ask_1')).toBeUndefined();
  });

  it('ask places: each ask’s state, its own post, and its expert’s first post on the request, in one read', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      await tx.asks.insert(ask('ask_first', 'req_1', 'maria', { state: 'answered', created_at: T0 }));
      await tx.asks.insert(ask('ask_again', 'req_1', 'maria', { created_at: T0 + HOUR }));
      await tx.asks.insert(ask('ask_other', 'req_1', 'ann', { state: 'released', created_at: T0 }));
      await tx.chat.setRef('ask_first', { channel: 'D1', ts: '100.1' });
    });
    const places = await e.store.chat.askPlaces(['ask_again', 'ask_first', 'ask_other', 'ask_gone']);
    expect(Object.fromEntries(places)).toEqual({
      ask_again: { state: 'open', ref: null, firstRef: { channel: 'D1', ts: '100.1', thread_ts: null } },
      ask_first: { state: 'answered', ref: { channel: 'D1', ts: '100.1', thread_ts: null }, firstRef: { channel: 'D1', ts: '100.1', thread_ts: null } },
      ask_other: { state: 'released', ref: null, firstRef: null },
    });
    expect((await e.store.chat.askPlaces([])).size).toBe(0);
  });

  it('service state: a value is read back, and setting it again replaces it', async () => {
    expect(await e.store.serviceState.get('last_review_reminder')).toBeUndefined();
    await e.store.transaction((tx) => tx.serviceState.set('last_review_reminder', String(T0)));
    await e.store.transaction((tx) => tx.serviceState.set('last_review_reminder', String(T0 + HOUR)));
    expect(await e.store.serviceState.get('last_review_reminder')).toBe(String(T0 + HOUR));
  });
});
