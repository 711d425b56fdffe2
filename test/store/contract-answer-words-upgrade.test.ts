import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnswerRecord } from '../../src/domain/answers.js';
import { searchVector } from '../../src/store/postgres/answers.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openPgStore } from '../../src/store/postgres/pg-store.js';
import { ANSWER_COLUMNS, answerColumns } from '../../src/store/row-records.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, dropTestDatabase } from './engines.js';
import { answerEntry, T0 } from './records.js';

/** Library entries kept before their questions' words were listed for the lookup at submit. */
const KEPT: AnswerRecord[] = [
  answerEntry('ans_1', { question: 'How long is the refund window?' }),
  answerEntry('ans_2', { question: 'Refund window for annual plans?', topic: 'payments' }),
  answerEntry('ans_3', { question: 'Refund window?', status: 'retired', retired: { reason: 'wrong', by: 'rita', at: T0 } }),
];

/** The schema versions before the word list (SQLite, PostgreSQL). */
const SQLITE_BEFORE = 19;
const PG_BEFORE = 10;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function candidates(store: Store): Promise<string[][]> {
  const ids = async (topic: string, words: string[]) =>
    (await store.answers.reuseCandidates({ topic, kind: 'answer', words, staleBefore: 0, limit: 10 })).map((a) => a.id);
  return [await ids('billing', ['refund']), await ids('payments', ['annual']), await ids('billing', ['annual'])];
}
const EXPECTED = [['ans_1'], ['ans_2'], []];

const marks = (n: number, pgStyle: boolean) => Array.from({ length: n }, (_, i) => (pgStyle ? `$${i + 1}` : '?')).join(', ');
const COUNT = ANSWER_COLUMNS.split(',').length;

describe('upgrading a database whose library entries were kept before their words were listed', () => {
  it('SQLite: the kept active entries are offered again after the upgrade, retired ones are not', async () => {
    expect(MIGRATIONS[SQLITE_BEFORE]).toContain('answer_words');
    const dir = mkdtempSync(join(tmpdir(), 'expertq-answer-words-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'db.sqlite');
    const old = new Database(path);
    for (const migration of MIGRATIONS.slice(0, SQLITE_BEFORE)) old.exec(migration);
    old.pragma(`user_version = ${SQLITE_BEFORE}`);
    const insert = old.prepare(`INSERT INTO answers (${ANSWER_COLUMNS}) VALUES (${marks(COUNT, false)})`);
    for (const kept of KEPT) insert.run(...answerColumns(kept));
    old.close();

    const store = openSqliteStore(path);
    cleanups.push(() => store.close());
    expect(await candidates(store)).toEqual(EXPECTED);
    expect((await store.answers.activeTopics()).map((t) => t.topic).sort()).toEqual(['billing', 'payments']);
  });

  it('PostgreSQL: the migration lists the kept active entries, and a start lists those an older instance wrote', async () => {
    const name = `eq_answer_words_${process.pid}`;
    const url = await createTestDatabase(name);
    cleanups.push(() => dropTestDatabase(name));
    const insert = `INSERT INTO answers (${ANSWER_COLUMNS}, search) VALUES (${marks(COUNT + 1, true)})`;
    const old = new pg.Client({ connectionString: url });
    await old.connect();
    try {
      for (const migration of PG_MIGRATIONS.slice(0, PG_BEFORE)) {
        if (typeof migration === 'string') await old.query(migration);
        else await migration(old);
      }
      await old.query('CREATE TABLE expertq_schema (version INTEGER NOT NULL)');
      await old.query('INSERT INTO expertq_schema (version) VALUES ($1)', [PG_BEFORE]);
      for (const kept of KEPT) await old.query(insert, [...answerColumns(kept), searchVector(kept.question, kept.answer)]);
    } finally {
      await old.end();
    }

    const first = await openPgStore({ url });
    expect(await candidates(first)).toEqual(EXPECTED);
    // What an instance of the previous version writes during a rolling upgrade: the entry alone.
    const written = answerEntry('ans_4', { question: 'Refund timing?' });
    await first.pool.query(insert, [...answerColumns(written), searchVector(written.question, written.answer)]);
    // A first entry on a topic of its own, written the same way.
    const alone = answerEntry('ans_5', { question: 'Payroll cutoff?', topic: 'payroll' });
    await first.pool.query(insert, [...answerColumns(alone), searchVector(alone.question, alone.answer)]);
    await first.close();

    const next = await openPgStore({ url });
    cleanups.push(() => next.close());
    expect((await candidates(next))[0]!.sort()).toEqual(['ans_1', 'ans_4']);
    expect((await next.answers.activeTopics()).map((t) => t.topic).sort()).toEqual(['billing', 'payments', 'payroll']);
  });
});
