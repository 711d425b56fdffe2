import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerQuery } from '../../../src/store/answer-repository.js';
import { RANK_EVERY_MATCH_UP_TO } from '../../../src/store/sqlite/answer-search.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { answerEntry, T0 } from '../records.js';

// A library past the size where every match is ranked: "policy" is in every question, "refund" in a
// few, "invoice" in the answers of a few others; one topic in ten is "payments".
const ENTRIES = RANK_EVERY_MATCH_UP_TO + 500;
const id = (n: number) => `ans_${String(n).padStart(6, '0')}`;
const question = (n: number) => (n % 1000 === 7 ? `Refund policy number ${n}?` : `Policy number ${n}?`);
const answer = (n: number) => (n % 1000 === 9 ? `See invoice rules ${n}.` : `Answer ${n}.`);

let dir: string;
let store: SqliteStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-answer-search-'));
  store = openSqliteStore(join(dir, 'db.sqlite'));
  await store.transaction(async (tx) => {
    for (let n = 0; n < ENTRIES; n++) {
      await tx.answers.insert(answerEntry(id(n), { question: question(n), answer: answer(n), topic: n % 10 === 0 ? 'payments' : 'billing' }));
    }
  });
}, 60_000);
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every page of a search, in order. */
async function allPages(query: Omit<AnswerQuery, 'staleBefore' | 'limit'>, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.answers.search({ ...query, staleBefore: T0 - 1, limit, cursor });
    ids.push(...page.items.map((a) => a.id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return ids;
}

describe('searching a large SQLite library', () => {
  it('ranks the entries found by rarer words first, then those found only by a word in most entries, newest first', async () => {
    const page = await store.answers.search({ q: 'refund invoice policy', staleBefore: T0 - 1, limit: 50 });
    const refunds = Array.from({ length: ENTRIES }, (_, n) => n).filter((n) => n % 1000 === 7);
    const invoices = Array.from({ length: ENTRIES }, (_, n) => n).filter((n) => n % 1000 === 9);
    const ranked = page.items.slice(0, refunds.length + invoices.length);
    // A word of the question ranks above a word of the answer.
    expect(ranked.slice(0, refunds.length).map((a) => a.id).sort()).toEqual(refunds.map(id));
    expect(ranked.slice(refunds.length).map((a) => a.id).sort()).toEqual(invoices.map(id));
    const rest = page.items.slice(ranked.length).map((a) => a.id);
    expect(rest).toEqual(rest.slice().sort().reverse());
    expect(rest[0]).toBe(id(ENTRIES - 1));
    expect(page.items.every((a) => typeof a.score === 'number')).toBe(true);
  });

  it('pages through every match once, across the end of the ranked entries, with and without a filter', async () => {
    const payments = await allPages({ q: 'refund policy', topic: 'payments' }, 7);
    expect(payments).toHaveLength(ENTRIES / 10);
    expect(new Set(payments).size).toBe(payments.length);
    const refunds = await allPages({ q: 'refund' }, 7);
    expect(refunds.sort()).toEqual(Array.from({ length: ENTRIES }, (_, n) => n).filter((n) => n % 1000 === 7).map(id));
    // A page that starts past the ranked entries continues with the newest of the rest.
    const deep = await store.answers.search({ q: 'refund policy', staleBefore: T0 - 1, limit: 5, cursor: '100' });
    const all = await store.answers.search({ q: 'refund policy', staleBefore: T0 - 1, limit: 105 });
    expect(deep.items.map((a) => a.id)).toEqual(all.items.slice(100).map((a) => a.id));
  });

  it('lists a search for a word in every entry newest first, as the index holds them', async () => {
    const page = await store.answers.search({ q: 'policy', staleBefore: T0 - 1, limit: 3, cursor: '3' });
    expect(page.items.map((a) => a.id)).toEqual([id(ENTRIES - 4), id(ENTRIES - 5), id(ENTRIES - 6)]);
    expect(page.next_cursor).toBe('6');
  });
});
