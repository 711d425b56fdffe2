import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../../src/store/postgres/pg-store.js';
import type { Tx } from '../../../src/store/store.js';
import { createTestDatabase, dropTestDatabase } from '../engines.js';
import { aLockWaiter, gate } from './two-instances.js';
import { ask, DAY, HOUR, request, T0 } from '../records.js';

/**
 * Two instances on one database deciding from a read at the same moment: the second must read only
 * after the first committed. Each transaction, once it has read, waits until either the other one has
 * read too (no lock: both decide on the same state) or the other one is waiting on a lock.
 */
describe('PostgreSQL locking across instances', () => {
  const name = `eq_locking_${process.pid}`;
  let stores: PgStore[] = [];

  async function twoInstances(): Promise<[PgStore, PgStore]> {
    const url = await createTestDatabase(name);
    stores = [await openPgStore({ url, poolSize: 3 }), await openPgStore({ url, poolSize: 3 })];
    return stores as [PgStore, PgStore];
  }

  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
    await dropTestDatabase(name);
  });

  /** Runs `read` then `act` in both instances at once; each acts once the other has read or waits on an advisory lock. */
  async function race<T>(read: (tx: Tx) => Promise<T>, act: (tx: Tx, seen: T, instance: number) => Promise<boolean>): Promise<boolean[]> {
    let reads = 0;
    const otherWaits = async (store: PgStore) => {
      const waiting = await store.pool.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
      return (waiting.rowCount ?? 0) > 0;
    };
    return Promise.all(
      stores.map((store, instance) =>
        store.transaction(async (tx) => {
          const seen = await read(tx);
          reads++;
          while (reads < 2 && !(await otherWaits(store)));
          return act(tx, seen, instance);
        }),
      ),
    );
  }

  it('two instances submitting one dedup key at the same moment make exactly one request', async () => {
    const [a] = await twoInstances();

    const inserted = await race(
      (tx) => tx.requests.findByDedupKey('invoice-42', T0 - HOUR),
      async (tx, found, instance) => {
        if (found) return false;
        await tx.requests.insert(request(`req_${instance}`, { dedup_key: 'invoice-42' }));
        return true;
      },
    );

    expect(inserted.filter(Boolean)).toHaveLength(1);
    expect(await a.requests.list({ limit: 10 })).toHaveLength(1);
  });

  it('two instances routing to one expert at the same moment respect a cap of one open ask', async () => {
    const [a] = await twoInstances();
    await a.transaction(async (tx) => {
      await tx.requests.insert(request('req_0'));
      await tx.requests.insert(request('req_1'));
    });

    const placed = await race(
      async (tx) => (await tx.asks.expertStates(['maria', 'ann'], T0)).get('maria')!,
      async (tx, maria, instance) => {
        if (maria.openAsks >= 1) return false;
        await tx.asks.insert(ask(`ask_${instance}`, `req_${instance}`, 'maria'));
        return true;
      },
    );

    expect(placed.filter(Boolean)).toHaveLength(1);
    expect(await a.asks.openOf('maria')).toHaveLength(1);
  });
  it('two instances submitting for one consumer at the same moment never pass its daily quota', async () => {
    const [a] = await twoInstances();
    await a.transaction((tx) => tx.requests.insert(request('req_old', { consumer_id: 'ledger', created_at: T0 - HOUR })));

    // A quota of two: one request already today, room for exactly one more.
    const inserted = await race(
      (tx) => tx.requests.countSubmittedSince('ledger', T0 - 2 * HOUR),
      async (tx, count, instance) => {
        if (count >= 2) return false;
        await tx.requests.insert(request(`req_${instance}`, { consumer_id: 'ledger' }));
        return true;
      },
    );

    expect(inserted.filter(Boolean)).toHaveLength(1);
    expect(await a.requests.countSubmittedSince('ledger', T0 - 2 * HOUR)).toBe(2);
  });
  it('setting an expert away while another instance routes to them passes on the ask it places', async () => {
    const [a, b] = await twoInstances();
    await a.transaction((tx) => tx.requests.insert(request('req_0')));

    // Instance a has read ben as free and is about to place an ask on him when b sets him away.
    const placing = gate();
    const routing = a.transaction(async (tx) => {
      const ben = (await tx.asks.expertStates(['ben'], T0)).get('ben')!;
      await placing.promise;
      if (ben.away === null) await tx.asks.insert(ask('ask_0', 'req_0', 'ben'));
    });
    let setting: Promise<string[]> | undefined;
    try {
      while ((await a.pool.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted`)).rowCount === 0);
      const away = { until: T0 + DAY, delegate_to: null, note: null, set_by: 'reviewer:ops', set_at: T0 };
      setting = b.transaction(async (tx) => {
        await tx.asks.setAway('ben', away, T0);
        return (await tx.asks.openOf('ben')).map((x) => x.id);
      });
      // The away either waits for the routing's commit (and then sees its ask) or is done before it.
      await Promise.race([setting, aLockWaiter(b).catch(() => undefined)]);
    } finally {
      placing.open();
      await routing;
    }

    expect(await setting).toEqual(['ask_0']);
  });
});
