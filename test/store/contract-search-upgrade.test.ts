import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore } from '../../src/store/postgres/pg-store.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, createTestDatabaseAt, dropTestDatabase } from './engines.js';
import { request, T0 } from './records.js';

/** Requests kept before text search had an index: [id, question, drafted question]. */
const KEPT: Array<[string, string, string | null]> = [
  ['req_1', 'Refund 100% of INVOICE_7?', null],
  ['req_2', 'Other thing', 'Which REFUND window applies?'],
  ['req_3', 'Résumé été', 'Résumé été'],
];
const COLUMNS = 'id, consumer_id, kind, topic, question, context, routing_policy, status, give_up_at, created_at, updated_at, asked_question';
const row = ([id, question, asked]: (typeof KEPT)[number]) => [id, 'ledger', 'answer', 'billing', question, '{}', '{}', 'accepted', T0, T0, T0, asked];

/** The schema versions before text search was indexed (SQLite, PostgreSQL). */
const SQLITE_BEFORE = 12;
const PG_BEFORE = 3;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function searches(store: Store): Promise<string[][]> {
  const ids = async (text: string) => (await store.requests.list({ text, limit: 10 })).map((r) => r.id);
  return [await ids('refund'), await ids('window'), await ids('invoice 7'), await ids('RÉSUMÉ'), await ids('nothing')];
}
const EXPECTED = [['req_2', 'req_1'], ['req_2'], ['req_1'], ['req_3'], []];

describe('upgrading a database whose requests were kept before text search was indexed', () => {
  it('SQLite: the kept requests are found at once, and indexed after start, in the background', async () => {
    expect(MIGRATIONS[SQLITE_BEFORE]).toContain('requests_search');
    const dir = mkdtempSync(join(tmpdir(), 'expertq-search-upgrade-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'db.sqlite');
    const old = new Database(path);
    for (const migration of MIGRATIONS.slice(0, SQLITE_BEFORE)) old.exec(migration);
    old.pragma(`user_version = ${SQLITE_BEFORE}`);
    const insert = old.prepare(`INSERT INTO requests (${COLUMNS}) VALUES (${COLUMNS.split(',').map(() => '?').join(', ')})`);
    for (const kept of KEPT) insert.run(...row(kept));
    old.close();

    const store = openSqliteStore(path);
    cleanups.push(() => store.close());
    const indexed = () => (store.db.prepare('SELECT count(*) AS n FROM requests_search').get() as { n: number }).n;
    // Start-up indexed nothing: a million requests take seconds, which the server does not wait for.
    expect(indexed()).toBe(0);
    expect(await searches(store)).toEqual(EXPECTED);
    await store.settle();
    expect(indexed()).toBe(KEPT.length);
    expect(await searches(store)).toEqual(EXPECTED);
  });

  it('PostgreSQL: the migration indexes every kept request', async () => {
    const name = `eq_search_upgrade_${process.pid}`;
    const url = await createTestDatabaseAt(name, PG_BEFORE, async (old) => {
      for (const kept of KEPT) await old.query(`INSERT INTO requests (${COLUMNS}) VALUES (${COLUMNS.split(',').map((_, i) => `$${i + 1}`).join(', ')})`, row(kept));
    });
    cleanups.push(() => dropTestDatabase(name));

    const store = await openPgStore({ url });
    cleanups.push(() => store.close());
    expect(await searches(store)).toEqual(EXPECTED);
  });

  it('PostgreSQL, rolling upgrade: a request an older instance inserted (no search words) is found once an instance starts again', async () => {
    const name = `eq_search_rolling_${process.pid}`;
    const url = await createTestDatabase(name);
    cleanups.push(() => dropTestDatabase(name));
    const first = await openPgStore({ url });
    await first.transaction((tx) => tx.requests.insert(request('req_1', { question: 'Refund window?' })));
    // What an instance of the previous version writes: the request without the column it does not know.
    await first.pool.query(`INSERT INTO requests (${COLUMNS}) VALUES (${COLUMNS.split(',').map((_, i) => `$${i + 1}`).join(', ')})`, row(['req_2', 'Refund timing?', null]));
    expect((await first.requests.list({ text: 'refund', limit: 10 })).map((r) => r.id)).toEqual(['req_1']);
    await first.close();

    const next = await openPgStore({ url });
    cleanups.push(() => next.close());
    expect((await next.requests.list({ text: 'refund', limit: 10 })).map((r) => r.id)).toEqual(['req_2', 'req_1']);
  });
});
