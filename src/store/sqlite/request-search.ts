import type Database from 'better-sqlite3';
import { requestSearchWords, searchWords } from '../../core/search-words.js';

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
 * The FTS5 query for `text`: every word of it as a quoted prefix (`"refu"*`), all required. Quoting
 * keeps words such as AND or NEAR from reading as operators; a word never holds a quote, but one
 * would be doubled. Undefined when `text` has no word: such a search finds nothing.
 */
export function ftsQuery(text: string): string | undefined {
  const words = searchWords(text);
  return words.length === 0 ? undefined : words.map((w) => `"${w.replaceAll('"', '""')}"*`).join(' ');
}
