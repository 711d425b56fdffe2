import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { pruneOnce } from '../../../src/store/retention.js';
import { DAY, request, T0 } from '../records.js';

// A text search, the metrics counts and the pick of a retention batch read every request kept: on a
// database file they run in a worker thread, so the event loop goes on meanwhile; an in-memory
// database exists on one connection only, and reads there on the main thread. Both answer alike.

let dir = '';
const opened: SqliteStore[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-slow-reads-'));
});
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(where: 'memory' | 'file'): SqliteStore {
  const store = openSqliteStore(where === 'memory' ? ':memory:' : join(dir, 'db.sqlite'));
  opened.push(store);
  return store;
}

/** `n` requests, every tenth of them finished long ago, whose questions never contain "needle" but the last. */
async function fill(store: SqliteStore, n: number): Promise<void> {
  await store.transaction(async (tx) => {
    for (let i = 0; i < n; i++) {
      const id = `req_${String(i).padStart(6, '0')}`;
      const old = i % 10 === 0;
      await tx.requests.insert(
        request(id, {
          question: i === n - 1 ? 'Where is the needle?' : `Question number ${i} about invoices and ledgers?`,
          status: old ? 'accepted' : 'asked',
          updated_at: old ? T0 - 400 * DAY : T0,
        }),
      );
    }
  });
}

/**
 * Whether `call` answered without the event loop turning: its work was done on this thread, inside
 * the call. A read answered by another thread can only arrive with a later turn of the loop.
 */
async function answeredInPlace(call: () => Promise<unknown>): Promise<boolean> {
  let answered = false;
  const pending = call().finally(() => (answered = true));
  for (let i = 0; i < 20; i++) await Promise.resolve();
  const result = answered;
  await pending;
  return result;
}

describe.each(['memory', 'file'] as const)('SQLite reads that grow with history, database in %s', (where) => {
  it('a text search, the counts by status and a retention batch answer as written', async () => {
    const store = open(where);
    await fill(store, 50);
    expect((await store.requests.list({ text: 'NEEDLE', limit: 10 })).map((r) => r.id)).toEqual(['req_000049']);
    expect(await store.requests.list({ text: 'haystack', limit: 10 })).toEqual([]);
    expect(await store.metrics.requestsByStatus()).toEqual({ accepted: 5, asked: 45 });
    expect(await store.metrics.counts()).toMatchObject({ pendingMessages: 0, pendingDeliveries: 0, deadDeliveries: 0, pendingProposals: 0 });
    const cutoffs = { outboxBefore: null, requestsBefore: T0 - 365 * DAY };
    expect(await store.retention.pickRequests(T0 - 365 * DAY, 3)).toEqual(['req_000000', 'req_000010', 'req_000020']);
    expect((await pruneOnce(store, cutoffs, 3)).requests).toBe(3);
    expect((await pruneOnce(store, cutoffs, 3)).requests).toBe(2);
    expect(await store.metrics.requestsByStatus()).toEqual({ asked: 45 });
  });

  it('a search inside a transaction sees what the transaction wrote: it reads on the writing connection', async () => {
    const store = open(where);
    const seen = await store.transaction(async (tx) => {
      await tx.requests.insert(request('req_new', { question: 'A needle, not committed yet?' }));
      return (await tx.requests.list({ text: 'needle', limit: 10 })).map((r) => r.id);
    });
    expect(seen).toEqual(['req_new']);
  });
});

describe('SQLite reads that grow with history, on a database file', () => {
  it('the counts behind /metrics and the pick of a retention batch leave the event loop free: they answer only after it turns', async () => {
    const file = open('file');
    const memory = open('memory');
    // Settled: the text index's catch-up is work of its own on this thread, not one of these reads.
    for (const store of [file, memory]) {
      await fill(store, 20_000);
      await store.settle();
    }
    expect(await answeredInPlace(() => file.metrics.requestsByStatus())).toBe(false);
    expect(await answeredInPlace(() => file.retention.pickRequests(T0 - 365 * DAY, 500))).toBe(false);
    // The same reads in memory hold the thread until done: they have answered when the call returns.
    expect(await answeredInPlace(() => memory.metrics.requestsByStatus())).toBe(true);
  });

  it('closing the store ends its read thread, and an idle store does not hold the process: each process exits by itself', () => {
    // The built store (`dist/`), as the server runs it: its worker script is found there too.
    const store = pathToFileURL(resolve('dist/store/sqlite/sqlite-store.js')).href;
    const script = (close: boolean) => `
      import { openSqliteStore } from ${JSON.stringify(store)};
      const store = openSqliteStore(${JSON.stringify(join(dir, 'child.sqlite'))});
      const found = await store.requests.list({ text: 'needle', limit: 10 });
      const counts = await store.metrics.requestsByStatus();
      ${close ? 'await store.close();' : ''}
      console.log(JSON.stringify({ found: found.length, counts }));`;
    for (const close of [true, false]) {
      // Without `process.exit`: a thread left running would keep the child alive until the timeout kills it.
      const out = execFileSync(process.execPath, ['--input-type=module'], { input: script(close), timeout: 20_000, encoding: 'utf8' });
      expect(JSON.parse(out)).toEqual({ found: 0, counts: {} });
    }
  });

  it('closing the store while a read (or a checkpoint) is still on its thread finishes the close, and the read answers', () => {
    const store = pathToFileURL(resolve('dist/store/sqlite/sqlite-store.js')).href;
    // Nothing else keeps this child's event loop alive: a close that let go of the thread before it
    // ended would leave the process to exit in the middle of awaiting the close, printing nothing.
    const script = `
      import { openSqliteStore } from ${JSON.stringify(store)};
      const store = openSqliteStore(${JSON.stringify(join(dir, 'closing.sqlite'))});
      const counting = store.metrics.requestsByStatus();
      await store.close();
      console.log(JSON.stringify({ closed: true, counts: await counting }));`;
    const out = execFileSync(process.execPath, ['--input-type=module'], { input: script, timeout: 20_000, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ closed: true, counts: {} });
  });
});
