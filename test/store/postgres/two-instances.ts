import { afterEach, beforeEach } from 'vitest';
import { openPgStore, type PgStore } from '../../../src/store/postgres/pg-store.js';
import { until } from '../../support/until.js';
import { createTestDatabase, dropTestDatabase } from '../engines.js';
import { T0 } from '../records.js';

/** Two PostgreSQL stores on one fresh database, as two expertq instances sharing it; closed and dropped after each test. */
export function useTwoInstances(): { readonly a: PgStore; readonly b: PgStore } {
  let name = '';
  let stores: PgStore[] = [];
  let n = 0;
  beforeEach(async () => {
    name = `eq_two_${process.pid}_${++n}`;
    const url = await createTestDatabase(name);
    stores = [await openPgStore({ url, poolSize: 3 }), await openPgStore({ url, poolSize: 3 })];
  });
  afterEach(async () => {
    for (const store of stores) await store.close();
    await dropTestDatabase(name);
  });
  return {
    get a() {
      return stores[0]!;
    },
    get b() {
      return stores[1]!;
    },
  };
}

/** Writes a bare request row (proposals and LLM jobs belong to one), past its give-up time when `giveUpAt` says so. */
export async function insertRequestRow(store: PgStore, id: string, giveUpAt = T0 + 86_400_000): Promise<void> {
  await store.pool.query(
    `INSERT INTO requests (id, consumer_id, kind, topic, question, context, routing_policy, status, give_up_at, created_at, updated_at)
      VALUES ($1, 'ledger', 'answer', 'billing', 'Why?', '{}', '{}', 'proposed', $2, $3, $3)`,
    [id, giveUpAt, T0],
  );
}

/** Resolves once some connection to this database waits for a row lock (another transaction holds it). */
export async function aLockWaiter(store: PgStore): Promise<'waits'> {
  await until(
    async () => {
      const r = await store.pool.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
      return (r.rows[0] as { n: number }).n > 0;
    },
    5_000,
    'a transaction waits for a row lock',
    () => '',
    5,
  );
  return 'waits';
}

/** A promise and the function that resolves it: holds a transaction open until the test lets it go. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}
