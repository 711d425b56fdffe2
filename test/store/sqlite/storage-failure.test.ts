import { afterEach, describe, expect, it } from 'vitest';
import { HOUR, schedulerKit, type SchedulerKit } from '../../support/scheduler-kit.js';

let k: SchedulerKit;
afterEach(async () => k.close());

describe('a tick while the database cannot take writes', () => {
  it('fails no request for it: the due work waits, and happens on the first tick once writes work again', async () => {
    k = await schedulerKit();
    const id = await k.submit(); // Dana, escalates to Lee after 2h
    const db = k.t.store.db;
    // Every write now fails with SQLITE_READONLY, as on a file system remounted read-only.
    db.pragma('query_only = ON');
    await expect(k.tickAfter(2 * HOUR)).rejects.toThrow(/readonly/);
    db.pragma('query_only = OFF');
    expect((await k.request(id)).status).toBe('asked'); // not failed with reason "error"
    expect(await k.asks(id)).toEqual([['dana', 'open']]);

    expect((await k.tickAfter(1000)).escalated).toBe(1);
    expect((await k.request(id)).status).toBe('escalated');
  });
});
