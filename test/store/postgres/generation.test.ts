import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openPgStore, type PgStore } from '../../../src/store/postgres/pg-store.js';
import type { InstanceRecord } from '../../../src/store/store.js';
import { createTestDatabase, dropTestDatabase } from '../engines.js';
import { ask, message, request, T0 } from '../records.js';

/**
 * What an instance writes for older versions serving from the same database: until the live
 * instances are all of this version, a request's submitter gets a row of its own among its
 * subscribers and an ask message keeps its text beside its elements, as an older version reads them.
 * Either way this version reads the same subscribers and messages.
 */

const name = `eq_subscribers_${process.pid}`;
let url: string;
let store: PgStore;

const instance = (id: string, generation?: number): InstanceRecord => ({
  id, host: 'h', pid: 1, version: '0.1.0', started_at: T0, last_seen: T0, registry_hash: 'r', ...(generation === undefined ? {} : { generation }),
});

async function column(sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows.map((r: Record<string, unknown>) => Object.values(r)[0]);
  } finally {
    await client.end();
  }
}

const ELEMENTS = ['Hi Dana,', 'The ledger asks because:\nit must', 'Question: "why"?', '', 'Briefly.', 'Recorded.'];

async function askMessage(id: string): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.requests.insert(request(`req_${id}`));
    await tx.asks.insert(ask(`ask_${id}`, `req_${id}`, 'dana'));
    await tx.outbox.enqueueMessage(message(`msg_${id}`, { request_id: `req_${id}`, ask_id: `ask_${id}`, purpose: 'ask', text: ELEMENTS.join('\n'), elements: ELEMENTS }));
  });
}

async function submitWithAttached(id: string): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.requests.insert(request(id, { consumer_id: 'ledger', created_at: T0 }));
    // The submitter is subscribed already; another consumer is attached once.
    expect(await tx.requests.addSubscriber(id, 'ledger', 'dedup', T0 + 1)).toBe(false);
    expect(await tx.requests.addSubscriber(id, 'crm', 'dedup', T0 + 2)).toBe(true);
    expect(await tx.requests.addSubscriber(id, 'crm', 'dedup', T0 + 3)).toBe(false);
  });
}

beforeEach(async () => {
  url = await createTestDatabase(name);
  store = await openPgStore({ url, poolSize: 3 });
});

afterEach(async () => {
  await store.close();
  await dropTestDatabase(name);
});

describe('PostgreSQL: a request submitter as subscriber, across versions', () => {
  it('writes the submitter row until the live instances are all of this version, and reads the same subscribers either way', async () => {
    // Not yet told which instances serve: an older one may.
    await submitWithAttached('req_before');
    // A live instance of an older version (its row has no generation).
    store.noteInstances([instance('inst_new', 1), instance('inst_old')]);
    await submitWithAttached('req_old_live');
    store.noteInstances([instance('inst_new', 1), instance('inst_other', 1)]);
    await submitWithAttached('req_all_new');

    expect(await column("SELECT request_id FROM request_subscribers WHERE via = 'submitter' ORDER BY request_id")).toEqual(['req_before', 'req_old_live']);
    for (const id of ['req_before', 'req_old_live', 'req_all_new']) {
      expect(await store.requests.subscribers(id)).toEqual(['ledger', 'crm']);
    }
    const many = await store.requests.subscribersOfMany(['req_before', 'req_all_new', 'req_missing']);
    expect(Object.fromEntries(many)).toEqual({ req_before: ['ledger', 'crm'], req_all_new: ['ledger', 'crm'] });
  });

  it('keeps an ask message\'s text beside its elements while an older version may read it, and reads the same message either way', async () => {
    await askMessage('before');
    store.noteInstances([instance('inst_new', 1), instance('inst_old', 0)]);
    await askMessage('old_live');
    store.noteInstances([instance('inst_new', 1)]);
    await askMessage('all_new');

    expect(await column('SELECT length(text) > 0 FROM messages ORDER BY id')).toEqual([false, true, true]); // all_new, before, old_live
    for (const id of ['before', 'old_live', 'all_new']) {
      const [stored] = await store.outbox.messages(`req_${id}`);
      expect(stored).toMatchObject({ text: ELEMENTS.join('\n'), elements: ELEMENTS });
    }
  });

  it("registers each instance with this version's generation, which the instances' rows then say", async () => {
    await store.transaction((tx) => tx.instances.upsert(instance('inst_a')));
    expect((await store.instances.list()).map((i) => [i.id, i.generation])).toEqual([['inst_a', 1]]);
  });
});
