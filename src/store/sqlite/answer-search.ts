import { whereClause, type Row } from './rows.js';
import type { SlowReads } from './worker-reader.js';

/** A question word counts twice an answer word in the ranking (bm25 column weights). */
const RANK = '-bm25(answers_fts, 2.0, 1.0)';

type Filters = Array<[clause: string, value: unknown]>;

const phrases = (words: readonly string[]) => words.map((w) => `"${w}"`).join(' OR ');

/**
 * One page of the entries holding any of `words`, best first, by position (`offset`, `limit` rows).
 *
 * bm25 gives a word found in at least half the entries almost no weight (FTS5 floors its inverse
 * document frequency at a millionth), so every entry holding one of the other words ranks above every
 * entry found by such common words alone. In a large library those come after the ranked ones, newest
 * first, instead of being ranked at about 0.4 µs an entry: a search for "policy" where most
 * questions say "policy" reads a page, not the library.
 */
export async function rankedPage(reads: SlowReads, words: readonly string[], filters: Filters, offset: number, limit: number): Promise<Row[]> {
  const { rare, common } = await splitByFrequency(reads, words);
  const rows = rare.length === 0 ? [] : await reads.all(rankedSql(filters), [phrases(rare), ...values(filters), limit, offset]);
  if (rows.length === limit || common.length === 0) return rows;
  // The ranked entries end on this page, or before it.
  const ranked = rare.length === 0 ? 0 : rows.length > 0 ? offset + rows.length : await countRanked(reads, rare, filters);
  const onlyCommon = rare.length === 0 ? phrases(common) : `(${phrases(common)}) NOT (${phrases(rare)})`;
  const rest = await reads.all(newestSql(filters), [onlyCommon, ...values(filters), limit - rows.length, Math.max(0, offset - ranked)]);
  return [...rows, ...rest];
}

/** Up to this many entries, every match is ranked: a few milliseconds at most. */
export const RANK_EVERY_MATCH_UP_TO = 20_000;

/**
 * The words found in fewer than half the entries (rare) and the others (common); words found nowhere
 * are left out. In a library of up to `RANK_EVERY_MATCH_UP_TO` entries every word counts as rare, so
 * every match is ranked (there, bm25's small weights still put a word in the question before one in
 * the answer).
 */
async function splitByFrequency(reads: SlowReads, words: readonly string[]): Promise<{ rare: readonly string[]; common: readonly string[] }> {
  const entries = (await reads.get('SELECT count(*) AS n FROM answers_fts_docsize'))!.n as number;
  if (entries <= RANK_EVERY_MATCH_UP_TO) return { rare: words, common: [] };
  const held = await reads.all(`SELECT term, doc FROM answers_fts_vocab WHERE term IN (${words.map(() => '?').join(', ')})`, [...words]);
  const found = new Map(held.map((r) => [r.term as string, r.doc as number]));
  // bm25's floor applies from half the library on.
  const common = (w: string) => 2 * found.get(w)! >= entries;
  return { rare: words.filter((w) => found.has(w) && !common(w)), common: words.filter((w) => found.has(w) && common(w)) };
}

const values = (filters: Filters) => filters.filter(([, value]) => value !== undefined).map(([, value]) => value);
const unfiltered = (filters: Filters) => filters.every(([, value]) => value === undefined);

/**
 * Best first; ties go to the newest entry (the larger rowid: entries are written when made). Without
 * a filter, the index ranks alone and only the page's entries are read (a third of the time).
 */
function rankedSql(filters: Filters): string {
  if (unfiltered(filters)) {
    return `SELECT a.*, f.score FROM (SELECT rowid, ${RANK} AS score FROM answers_fts WHERE answers_fts MATCH ?
      ORDER BY score DESC, rowid DESC LIMIT ? OFFSET ?) f JOIN answers a ON a.rowid = f.rowid ORDER BY f.score DESC, f.rowid DESC`;
  }
  const { where } = whereClause([['answers_fts MATCH ?', ''], ...filters]);
  return `SELECT a.*, ${RANK} AS score FROM answers_fts JOIN answers a ON a.rowid = answers_fts.rowid ${where}
    ORDER BY score DESC, a.rowid DESC LIMIT ? OFFSET ?`;
}

/** Newest first, read in the index's own order: as many entries as the page needs. */
function newestSql(filters: Filters): string {
  const { where } = whereClause([['answers_fts MATCH ?', ''], ...filters]);
  return `SELECT a.*, ${RANK} AS score FROM answers_fts JOIN answers a ON a.rowid = answers_fts.rowid ${where}
    ORDER BY answers_fts.rowid DESC LIMIT ? OFFSET ?`;
}

async function countRanked(reads: SlowReads, rare: readonly string[], filters: Filters): Promise<number> {
  const { where } = whereClause([['answers_fts MATCH ?', ''], ...filters]);
  const join = unfiltered(filters) ? '' : ' JOIN answers a ON a.rowid = answers_fts.rowid';
  return ((await reads.get(`SELECT count(*) AS n FROM answers_fts${join} ${where}`, [phrases(rare), ...values(filters)]))!.n as number);
}
