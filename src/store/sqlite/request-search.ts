import type Database from 'better-sqlite3';
import { foldForSearch, requestSearchWords, searchWords, wordStartTests } from '../../core/search-words.js';
import { type Row, whereClause } from './rows.js';

/**
 * A request's words in the full-text index `requests_search` (migration 13), written in the
 * transaction that writes the request; a deleted request leaves it by trigger.
 */
export class SqliteRequestSearch {
  private readonly put: Database.Statement;
  private readonly textOf: Database.Statement;

  constructor(db: Database.Database) {
    // REPLACE: a request whose drafted question changes is indexed anew under the same rowid.
    this.put = db.prepare('INSERT OR REPLACE INTO requests_search (rowid, words) VALUES (?, ?)');
    this.textOf = db.prepare('SELECT rowid, question, asked_question FROM requests WHERE id = ?');
  }

  /** Indexes the request stored at `rowid`. */
  index(rowid: number | bigint, question: string, askedQuestion: string | null): void {
    this.put.run(rowid, requestSearchWords(question, askedQuestion).join(' '));
  }

  /** Indexes request `id` again from its stored text (after its drafted question changed). */
  reindex(id: string): void {
    const row = this.textOf.get(id) as { rowid: number; question: string; asked_question: string | null } | undefined;
    if (row) this.index(row.rowid, row.question, row.asked_question);
  }
}

/**
 * expertq's word rules as SQL functions on a connection: `expertq_search_words(question, asked)` for
 * the migration that indexes kept requests, `expertq_matches(question, asked, words)` for a search.
 */
export function defineSearchFunctions(db: Database.Database): void {
  db.function('expertq_search_words', { deterministic: true }, (question, asked) =>
    requestSearchWords(question as string, asked as string | null).join(' '),
  );
  // One search calls it for every request its rarest word finds, with the same words each time.
  let last: { words: string; tests: ReturnType<typeof wordStartTests> } = { words: '', tests: [] };
  db.function('expertq_matches', { deterministic: true }, (question, asked, words) => {
    if (words !== last.words) last = { words: words as string, tests: wordStartTests((words as string).split(' ')) };
    const texts = [foldForSearch(question as string), asked === null ? '' : foldForSearch(asked as string)];
    return Number(last.tests.every((test) => texts.some(test)));
  });
}

/**
 * How many of the newest requests a search reads before it turns to the full-text index: about 2 ms
 * at a million requests, and enough to fill a page of any word found in a tenth of the questions.
 */
export const NEWEST_FIRST = 1000;

type Filters = Array<[clause: string, value: unknown]>;

/**
 * The newest `limit` requests matching the other filters whose text has every word of `text` (none
 * when it has no word). FTS5 answers a word by merging the lists of every indexed word it starts,
 * whole, before the first row: a common prefix ("wh", "the") costs a second at a million requests,
 * even beside a rare word. So a search first reads the newest requests: a common word fills its page
 * there. Otherwise that sample says which word is rarest, and the index answers that word alone; the
 * others are checked on the requests it finds.
 */
export function searchRequests(prepare: (sql: string) => Database.Statement, filters: Filters, text: string, limit: number): Row[] {
  const searched = searchWords(text);
  if (searched.length === 0) return [];
  const newest = whereClause(filters);
  const sample = prepare(`SELECT id, question, asked_question FROM requests ${newest.where} ORDER BY id DESC LIMIT ?`).all(...newest.values, NEWEST_FIRST) as Row[];
  const tests = wordStartTests(searched);
  const hits = searched.map(() => 0);
  const found: string[] = [];
  for (const row of sample) {
    const question = foldForSearch(row.question as string);
    const asked = row.asked_question === null ? '' : foldForSearch(row.asked_question as string);
    let all = true;
    tests.forEach((test, i) => {
      if (test(question) || test(asked)) hits[i]!++;
      else all = false;
    });
    if (all && found.length < limit) found.push(row.id as string);
  }
  // A full page, or every request the other filters allow: the sample is the answer.
  if (found.length === limit || sample.length < NEWEST_FIRST) {
    return prepare('SELECT * FROM requests WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id DESC').all(JSON.stringify(found)) as Row[];
  }

  // Fewest hits in the sample; of those, the longest word (a longer prefix starts fewer words).
  let rarest = 0;
  searched.forEach((s, i) => {
    if (hits[i]! < hits[rarest]! || (hits[i] === hits[rarest] && s.length > searched[rarest]!.length)) rarest = i;
  });
  const { where, values } = whereClause([
    // Quoted, so that a word such as AND or NEAR is no operator; a word never holds a quote.
    ['requests_search MATCH ?', `"${searched[rarest]!}"*`],
    ...(searched.length > 1 ? ([['expertq_matches(question, asked_question, ?)', searched.join(' ')]] as Filters) : []),
    ...filters,
  ]);
  // CROSS JOIN: the search starts from what the index finds, since a status or a topic can cover most
  // of the history, which SQLite's planner, without statistics, cannot know. It sorts the ids of what
  // it finds, then reads the page's rows only (sorting whole rows took twice as long).
  return prepare(`SELECT * FROM requests WHERE id IN (SELECT requests.id FROM requests_search CROSS JOIN requests ON requests.rowid = requests_search.rowid
    ${where} ORDER BY requests.id DESC LIMIT ?) ORDER BY id DESC`).all(...values, limit) as Row[];
}
