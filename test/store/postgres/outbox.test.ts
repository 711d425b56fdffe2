import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../../src/store/postgres/pg-store.js';
import { createTestDatabase, dropTestDatabase } from '../engines.js';
import { delivery, event, message, T0 } from '../records.js';

/**
 * Two instances claiming at the same moment: the second's claim runs while the first's transaction,
 * its claim made, is still open. Were rows locked and waited for, the first (awaiting the second)
 * would never commit and the test would time out; with SKIP LOCKED the second takes the next rows.
 */

const LEASE = 15_000;
const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);
const name = `eq_outbox_${process.pid}`;
let a: PgStore;
let b: PgStore;

beforeEach(async () => {
  const url = await createTestDatabase(name);
  a = await openPgStore({ url, poolSize: 3 });
  b = await openPgStore({ url, poolSize: 3 });
});

afterEach(async () => {
  await Promise.all([a.close(), b.close()]);
  await dropTestDatabase(name);
});

describe('PostgreSQL outbox claims by two instances at once', () => {
  it('messages: the second instance takes the next due rows while the first still holds its claim open', async () => {
    await a.transaction(async (tx) => {
      for (const [i, id] of ['msg_1', 'msg_2', 'msg_3', 'msg_4', 'msg_5'].entries()) {
        await tx.outbox.enqueueMessage(message(id, { next_attempt_at: T0 + i }));
      }
    });
    const claim = { now: T0 + 10, leaseUntil: T0 + LEASE, limit: 2 };
    const [first, second] = await a.transaction(async (tx) => {
      const mine = await tx.outbox.claimMessages({ ...claim, owner: 'inst_a' });
      const theirs = await b.transaction((other) => other.outbox.claimMessages({ ...claim, owner: 'inst_b' }));
      return [mine, theirs];
    });
    expect(ids(first)).toEqual(['msg_1', 'msg_2']);
    expect(ids(second)).toEqual(['msg_3', 'msg_4']);
  });

  it('deliveries: the second instance takes the next rows of each consumer, within perConsumer, while the first holds its claim open', async () => {
    for (const id of ['hook_a', 'hook_b']) {
      await a.pool.query(
        `INSERT INTO consumers (id, handles_kinds, delivery_type, delivery, secret, dedup_window, dedup_window_ms, auto_accept, created_at, updated_at)
          VALUES ($1, '["answer"]', 'webhook', '{"type":"webhook","url":"https://hooks.example.com/x"}', 's', '1h', 3600000, 0, $2, $2)`,
        [id, T0],
      );
    }
    await a.transaction(async (tx) => {
      await tx.outbox.insertEvent(event('evt_1', 'req_1'));
      for (const [i, id] of ['dlv_a1', 'dlv_a2', 'dlv_a3', 'dlv_a4'].entries()) {
        await tx.outbox.insertDelivery(delivery(id, 'evt_1', 'hook_a', 'req_1', { next_attempt_at: T0 + i }));
      }
      await tx.outbox.insertDelivery(delivery('dlv_b1', 'evt_1', 'hook_b', 'req_1', { next_attempt_at: T0 + 5 }));
    });
    const claim = { now: T0 + 10, leaseUntil: T0 + LEASE, limit: 10, perConsumer: 2, inFlight: {}, live: [] };
    const [first, second] = await a.transaction(async (tx) => {
      const mine = await tx.outbox.claimDeliveries({ ...claim, owner: 'inst_a' });
      const theirs = await b.transaction((other) => other.outbox.claimDeliveries({ ...claim, owner: 'inst_b' }));
      return [mine, theirs];
    });
    expect(ids(first)).toEqual(['dlv_a1', 'dlv_a2', 'dlv_b1']);
    expect(ids(second)).toEqual(['dlv_a3', 'dlv_a4']);
    expect(second.map((d) => d.attempts)).toEqual([1, 1]);
  });
});
