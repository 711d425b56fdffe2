import type Database from 'better-sqlite3';
import { foldForSearch, requestSearchWords, searchWords, wordStartTests } from '../../core/search-words.js';
import { questionTokens } from '../../core/match-question.js';
import { type Row, whereClause } from './rows.js';

/**
 * Requests' words in the full-text index `requests_search` (migration 13). A request is indexed after
 * it is written, with others, by `indexPending` (the store runs it about once a second): every request
 * up to `search_progress.indexed_through` is indexed, and a search reads the few after it directly.
 * A deleted request leaves the index by trigger.
 */
export class SqliteRequestSearch {
  private readonly reput: Database.Statement;
  private readonly upTo: Database.Statement;
  private readonly put: Database.Statement;
  private readonly advance: Database.Statement;
  private readonly behind: Database.Statement;

  constructor(db: Database.Database) {
    // REPLACE: a request whose drafted question changes is indexed anew under the same rowid, if it
    // was indexed already; otherwise its turn will come.
    this.reput = db.prepare(`INSERT OR REPLACE INTO requests_search (rowid, words)
      SELECT rowid, expertq_search_words(question, asked_question) FROM requests
      WHERE id = ? AND rowid <= (SELECT indexed_through FROM search_progress)`);
    this.upTo = db.prepare(`SELECT max(rowid) AS last FROM (SELECT rowid FROM requests
      WHERE rowid > (SELECT indexed_through FROM search_progress) ORDER BY rowid LIMIT ?)`);
    this.put = db.prepare(`INSERT INTO requests_search (rowid, words)
      SELECT rowid, expertq_search_words(question, asked_question) FROM requests
      WHERE rowid > (SELECT indexed_through FROM search_progress) AND rowid <= ?`);
    this.advance = db.prepare('UPDATE search_progress SET indexed_through = ?');
    this.behind = db.prepare('SELECT (SELECT coalesce(max(rowid), 0) FROM requests) > (SELECT indexed_through FROM search_progress) AS behind');
  }

  /** Indexes request `id` again from its stored text (after its drafted question changed). */
  reindex(id: string): void {
    this.reput.run(id);
  }

  /** Whether some request waits to be indexed. */
  pending(): boolean {
    return (this.behind.get() as { behind: number }).behind === 1;
  }

  /** Indexes up to `limit` of the requests not indexed yet, oldest first; returns how many. */
  indexPending(limit: number): number {
    const last = (this.upTo.get(limit) as { last: number | null }).last;
    if (last === null) return 0;
    const { changes } = this.put.run(last);
    this.advance.run(last);
    return changes;
  }
}

/**
 * expertq's word rules as SQL functions on a connection: `expertq_search_words(question, asked)` for
 * the migration that indexes kept requests, `expertq_matches(question, asked, words)` for a search,
 * `expertq_question_words(question)` (a JSON array) to list library entries' words, and
 * `expertq_shared_words(question, words)` for a lookup among entries not listed yet.
 */
export function defineSearchFunctions(db: Database.Database): void {
  db.function('expertq_question_words', { deterministic: true }, (question) => JSON.stringify([...questionTokens(question as string)]));
  // A lookup calls it for every library entry not yet in the word list, with the same words each time.
  let held: { words: string; set: Set<string> } = { words: '', set: new Set() };
  db.function('expertq_shared_words', { deterministic: true }, (question, words) => {
    if (words !== held.words) held = { words: words as string, set: new Set((words as string).split(' ')) };
    let shared = 0;
    for (const token of questionTokens(question as string)) if (held.set.has(token)) shared++;
    return shared;
  });
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
  // The requests not indexed yet (written in the last second or so) are read directly, from the
  // rowid after the last indexed one: CROSS JOIN and NOT INDEXED, or the planner walks every id (or
  // every request of the topic) testing each rowid against the mark (55 ms at a million requests).
  const tail = whereClause([['expertq_matches(question, asked_question, ?)', searched.join(' ')], ...filters]);
  return prepare(`SELECT * FROM requests WHERE id IN (
      SELECT requests.id FROM requests_search CROSS JOIN requests ON requests.rowid = requests_search.rowid ${where}
      UNION ALL SELECT requests.id FROM (SELECT indexed_through AS through FROM search_progress) AS mark
        CROSS JOIN requests NOT INDEXED ON requests.rowid > mark.through ${tail.where}
      ORDER BY 1 DESC LIMIT ?) ORDER BY id DESC`).all(...values, ...tail.values, limit) as Row[];
}
