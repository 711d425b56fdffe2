import { afterEach, describe, expect, it } from 'vitest';
import { Conflict, StorageUnavailable } from '../../src/store/errors.js';
import { buildTestApp, type TestApp } from '../support/build-test-app.js';
import { MINUTE, schedulerKit } from '../support/scheduler-kit.js';

// SQLite engine tests: they reach below the store's interface with SQLite's own pragmas and counters.
let t: TestApp;
afterEach(async () => t.close());

const readOnly = (app: TestApp, on: boolean) => app.store.db.pragma(`query_only = ${on ? 'ON' : 'OFF'}`);

describe('the SQLite store answers driver-neutral errors', () => {
  it('a write the database refuses is StorageUnavailable (read_only), alone or among other transactions of its turn', async () => {
    t = await buildTestApp();
    readOnly(t, true);
    const refused = (error: unknown) => error instanceof StorageUnavailable && error.code === 'read_only' && /readonly/.test(error.message);
    const write = () => t.store.transaction((tx) => tx.serviceState.set('k', 'v')).catch((error: unknown) => error);
    expect(refused(await write())).toBe(true);
    const together = await Promise.all([write(), write()]);
    expect(together.every(refused)).toBe(true);
    readOnly(t, false);
  });

  it('a second row under a unique key is a Conflict', async () => {
    t = await buildTestApp();
    const res = await t.call('POST', '/api/v1/requests', { consumer_id: 'c', topic: 'billing', question: 'Refund?', context: { asked_because: 'test' } });
    const [ask] = await t.store.asks.listFor(res.body.request_id);
    await expect(t.store.transaction((tx) => tx.asks.insert(ask!))).rejects.toThrow(Conflict);
  });

  it('registering a consumer the database refuses is answered 503 with a retry hint, as every refused write is', async () => {
    t = await buildTestApp({ config: { server: { allow_private_webhooks: true } } });
    readOnly(t, true);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/consumers', payload: { id: 'c1', handles_kinds: ['answer'], delivery: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } } });
    readOnly(t, false);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.json()).toEqual({
      error: { code: 'unavailable', message: 'The server cannot store anything right now (its database cannot take writes); nothing was changed. Try again later.' },
    });
  });
});

describe('the SQLite store under the scheduler', () => {
  it('an idle tick writes nothing (no row changed, by SQLite\'s own count)', async () => {
    const k = await schedulerKit();
    t = k.t;
    await k.submit();
    await k.tickAfter(MINUTE); // the first tick after a start re-checks everything
    const changes = () => (k.t.store.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    const before = changes();
    const tick = await k.tickAfter(MINUTE);
    expect(tick).toEqual({ timed_out: 0, rate_limited: 0, warned: 0, escalated: 0, sent: 0, placed: 0, more: false, reminded: false });
    expect(changes()).toBe(before);
  });
});
