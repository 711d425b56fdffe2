import { describe, expect, it } from 'vitest';
import { ENGINES } from './engines.js';
import { HOUR, MINUTE, request, T0 } from './records.js';
import { useEngine } from './use-engine.js';

describe.each(ENGINES)('$name store: due request_expiring warnings', (engine) => {
  const e = useEngine(engine);

  it('finds open requests whose warn_at has passed, by (warn_at, id), pages after a cursor, and forgets one once warn_at is cleared', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_b', { status: 'asked', warn_at: T0 - HOUR }));
      await tx.requests.insert(request('req_a', { status: 'queued', warn_at: T0 - HOUR }));
      await tx.requests.insert(request('req_c', { status: 'escalated', warn_at: T0 - 2 * HOUR }));
      await tx.requests.insert(request('req_now', { status: 'asked', warn_at: T0 }));
      await tx.requests.insert(request('req_later', { status: 'asked', warn_at: T0 + MINUTE }));
      await tx.requests.insert(request('req_none', { status: 'asked', warn_at: null }));
      await tx.requests.insert(request('req_proposed', { status: 'proposed', warn_at: T0 - HOUR }));
      await tx.requests.insert(request('req_failed', { status: 'failed', warn_at: T0 - HOUR }));
    });
    const ids = async (after: { at: number; id: string } | null, limit = 10) => (await e.store.requests.dueWarnings(T0, after, limit)).map((r) => r.id);

    expect(await e.store.requests.dueWarnings(T0, null, 1)).toEqual([{ id: 'req_c', warn_at: T0 - 2 * HOUR }]);
    expect(await ids(null)).toEqual(['req_c', 'req_a', 'req_b', 'req_now']);
    expect(await ids({ at: T0 - HOUR, id: 'req_a' })).toEqual(['req_b', 'req_now']);

    await e.store.transaction((tx) => tx.requests.update('req_a', { warn_at: null }));
    expect(await ids(null)).toEqual(['req_c', 'req_b', 'req_now']);
    expect((await e.store.requests.get('req_a'))?.warn_at).toBeNull();
    expect((await e.store.requests.get('req_b'))?.warn_at).toBe(T0 - HOUR);
  });
});
