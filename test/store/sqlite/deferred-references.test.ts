import { afterEach, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { ask, request } from '../records.js';

// A submit writes its ask before its request (the request last, in its final state): references are
// checked at commit. That must hold for the first transaction too, whatever ran on the connection
// before it (under load, a read or a checkpoint can come first, and the first submit answered 500).

let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
});

it('checks references at commit in the first transaction, after a read on the same connection', async () => {
  // In memory, reads share the writing connection.
  store = openSqliteStore(':memory:');
  expect(await store.requests.get('req_1')).toBeUndefined();
  await store.transaction(async (tx) => {
    await tx.asks.insert(ask('ask_1', 'req_1', 'dana'));
    await tx.requests.insert(request('req_1'));
  });
  expect((await store.requests.get('req_1'))?.id).toBe('req_1');
});
