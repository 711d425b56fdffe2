import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnswerRecord } from '../../src/domain/answers.js';
import { searchVector } from '../../src/store/postgres/answers.js';
import { openPgStore } from '../../src/store/postgres/pg-store.js';
import { ANSWER_COLUMNS, answerColumns } from '../../src/store/row-records.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { SqliteAnswerWordsFill } from '../../src/store/sqlite/answer-words-fill.js';
import { defineSearchFunctions } from '../../src/store/sqlite/request-search.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabaseAt, dropTestDatabase } from './engines.js';
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

/**
 * A SQLite file at the schema before the word list, holding `entries`; `then(db)` runs on it before it
 * is closed (another release's upgrade, say). Resolves with its path.
 */
function sqliteBefore(entries: readonly AnswerRecord[], then: (db: Database.Database) => void = () => {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-answer-words-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'db.sqlite');
  const old = new Database(path);
  defineSearchFunctions(old);
  for (const migration of MIGRATIONS.slice(0, SQLITE_BEFORE)) old.exec(migration);
  old.pragma(`user_version = ${SQLITE_BEFORE}`);
  const insert = old.prepare(`INSERT INTO answers (${ANSWER_COLUMNS}) VALUES (${marks(COUNT, false)})`);
  for (const entry of entries) insert.run(...answerColumns(entry));
  then(old);
  old.close();
  return path;
}

describe('upgrading a database whose library entries were kept before their words were listed', () => {
  it('SQLite: the kept active entries are offered again after the upgrade, retired ones are not', async () => {
    expect(MIGRATIONS[SQLITE_BEFORE]).toContain('answer_words');
    const path = sqliteBefore(KEPT);

    const store = openSqliteStore(path);
    cleanups.push(() => store.close());
    const listed = () => (store.db.prepare('SELECT DISTINCT answer_id FROM answer_words ORDER BY 1').all() as Array<{ answer_id: string }>).map((r) => r.answer_id);
    // Start-up listed nothing (a million entries take a minute, which the server does not wait for),
    // and the lookup finds the kept entries all the same.
    expect(listed()).toEqual([]);
    expect(await candidates(store)).toEqual(EXPECTED);
    expect((await store.answers.activeTopics()).map((t) => t.topic).sort()).toEqual(['billing', 'payments']);
    // An entry written since, and one retired before the filling reached it.
    await store.transaction(async (tx) => {
      await tx.answers.insert(answerEntry('ans_4', { question: 'Refund timing?' }));
      await tx.answers.retire('ans_2', { reason: 'wrong', by: 'rita', at: T0 });
    });
    const after = [['ans_1', 'ans_4'], [], []];
    expect((await candidates(store)).map((ids) => ids.sort())).toEqual(after);
    await store.settle();
    expect(listed()).toEqual(['ans_1', 'ans_4']);
    expect((await candidates(store)).map((ids) => ids.sort())).toEqual(after);
  });

  it('SQLite: listed a slice at a time, the lookup finds every kept entry before, between and after the slices', async () => {
    const topics = ['billing', 'payments', 'payroll'];
    // Written in an order unlike the filling's (topic, then id).
    const path = sqliteBefore(Array.from({ length: 9 }, (_, i) => answerEntry(`ans_${9 - i}`, { question: `Refund window ${i}?`, topic: topics[i % 3]! })));

    const store = openSqliteStore(path);
    cleanups.push(() => store.close());
    const found = async () => {
      const all = await Promise.all(topics.map((topic) => store.answers.reuseCandidates({ topic, kind: 'answer', words: ['refund'], staleBefore: 0, limit: 10 })));
      return all.map((entries) => entries.map((a) => a.id).sort());
    };
    const expected = [['ans_3', 'ans_6', 'ans_9'], ['ans_2', 'ans_5', 'ans_8'], ['ans_1', 'ans_4', 'ans_7']];
    const fill = new SqliteAnswerWordsFill(store.db);
    const slices: number[] = [];
    do {
      expect(await found()).toEqual(expected);
      slices.push((store.db.prepare('SELECT count(DISTINCT answer_id) AS n FROM answer_words').get() as { n: number }).n);
    } while (fill.fillPending(2));
    expect(slices).toEqual([0, 2, 4, 6, 8]);
    expect(fill.pending()).toBe(false);
    expect((store.db.prepare('SELECT count(DISTINCT answer_id) AS n FROM answer_words').get() as { n: number }).n).toBe(9);
    expect(await found()).toEqual(expected);
  });

  it('SQLite: a database whose upgrade listed the kept entries itself has nothing left to list', async () => {
    const path = sqliteBefore(KEPT, (old) => {
      // What the word list's migration did in the release that listed the kept entries at once.
      old.exec(MIGRATIONS[SQLITE_BEFORE]!.replace('CREATE TABLE answer_words_unfilled (unused INTEGER);', ''));
      old.exec(`INSERT INTO answer_words (topic, kind, word, answer_id)
        SELECT a.topic, a.kind, w.value, a.id FROM answers a, json_each(expertq_question_words(a.question)) w WHERE a.status = 'active'`);
      old.exec(MIGRATIONS[SQLITE_BEFORE + 1]!);
      old.pragma(`user_version = ${SQLITE_BEFORE + 2}`);
    });

    const store = openSqliteStore(path);
    cleanups.push(() => store.close());
    expect(store.db.prepare('SELECT fill_end FROM answer_words_progress').get()).toEqual({ fill_end: 0 });
    expect(await candidates(store)).toEqual(EXPECTED);
  });

  it('PostgreSQL: the migration lists the kept active entries, and a start lists those an older instance wrote', async () => {
    const name = `eq_answer_words_${process.pid}`;
    const insert = `INSERT INTO answers (${ANSWER_COLUMNS}, search) VALUES (${marks(COUNT + 1, true)})`;
    const url = await createTestDatabaseAt(name, PG_BEFORE, async (old) => {
      for (const kept of KEPT) await old.query(insert, [...answerColumns(kept), searchVector(kept.question, kept.answer)]);
    });
    cleanups.push(() => dropTestDatabase(name));

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
