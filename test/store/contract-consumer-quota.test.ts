import { describe, expect, it } from 'vitest';
import { ENGINES } from './engines.js';
import { consumer, DAY, HOUR, MINUTE, request, T0 } from './records.js';
import { useEngine } from './use-engine.js';

describe.each(ENGINES)('$name store: a consumer\'s requests since a moment (daily quota)', (engine) => {
  const e = useEngine(engine);

  it('counts only that consumer\'s requests created at or after the moment, whatever became of them, and the ones written earlier in the same transaction', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_yesterday', { created_at: T0 - DAY }));
      await tx.requests.insert(request('req_midnight', { created_at: T0 - 10 * HOUR }));
      await tx.requests.insert(request('req_failed', { created_at: T0 - HOUR, status: 'failed', reason: { code: 'no_expert_found', message: 'nobody' } }));
      await tx.requests.insert(request('req_other', { consumer_id: 'crm', created_at: T0 }));
    });
    expect(await e.store.requests.countSubmittedSince('ledger', T0 - 10 * HOUR)).toBe(2);
    expect(await e.store.requests.countSubmittedSince('ledger', T0 - 10 * HOUR + 1)).toBe(1);
    expect(await e.store.requests.countSubmittedSince('crm', T0 - 10 * HOUR)).toBe(1);
    expect(await e.store.requests.countSubmittedSince('nobody', 0)).toBe(0);

    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_now', { created_at: T0 + MINUTE }));
      expect(await tx.requests.countSubmittedSince('ledger', T0 - 10 * HOUR)).toBe(3);
    });
  });

  it('keeps a consumer\'s own quota, and none when it has none', async () => {
    await e.store.transaction(async (tx) => {
      await tx.consumers.upsert(consumer('capped', { max_requests_per_day: 25 }));
      await tx.consumers.upsert(consumer('free'));
    });
    expect((await e.store.consumers.get('capped'))?.max_requests_per_day).toBe(25);
    expect((await e.store.consumers.get('free'))?.max_requests_per_day).toBeNull();
    await e.store.transaction((tx) => tx.consumers.upsert(consumer('capped', { max_requests_per_day: null })));
    expect((await e.store.consumers.get('capped'))?.max_requests_per_day).toBeNull();
  });
});
