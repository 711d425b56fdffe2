import type Database from 'better-sqlite3';
import type { AnswerRecord, Retirement } from '../../domain/answers.js';
import { questionTokens } from '../../core/match-question.js';
import { searchWords } from '../../core/search-words.js';
import { type AnswerPage, type AnswerQuery, type AnswerRefresh, type AnswerRepository, type AnswerStats, queryWords, rankedOffset, type ReuseQuery } from '../answer-repository.js';
import { rankedPage } from './answer-search.js';
import { UNFILLED_ENTRIES, unlistedEntriesRemain } from './answer-words-fill.js';
import { mainThreadReads, type SlowReads } from './worker-reader.js';
import { ANSWER_COLUMNS, answerColumns, json, prepareAll, type Row, statementCache, toAnswer, whereClause } from './rows.js';
import { ANSWERS } from '../shared/answers-sql.js';
import { ANSWER_STATS, answerStatusFilter } from '../shared/rules-sql.js';

function prepare(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    ...prepareAll(db, ANSWERS),
    insert: p(`INSERT INTO answers (${ANSWER_COLUMNS}) VALUES (${ANSWER_COLUMNS.split(',').map(() => '?').join(', ')})`),
    index: p('INSERT INTO answers_fts (rowid, question, answer) VALUES (?, ?, ?)'),
    word: p('INSERT OR IGNORE INTO answer_words (topic, kind, word, answer_id) VALUES (?, ?, ?, ?)'),
    countIn: p('INSERT INTO answer_topics (topic, kind, active) VALUES (?, ?, 1) ON CONFLICT (topic, kind) DO UPDATE SET active = active + 1'),
    get: p('SELECT * FROM answers WHERE id = ?'),
    refresh: p(`UPDATE answers SET answer = ?, structured = ?, verified_at = ? WHERE id = ? AND status = 'active' RETURNING rowid, question`),
    reindex: p('UPDATE answers_fts SET answer = ? WHERE rowid = ?'),
  };
}


/** The answer library in SQLite: each entry and its FTS5 row are written by the same statement pair, in the caller's transaction. */
export class SqliteAnswers implements AnswerRepository {
  private readonly stmts: ReturnType<typeof prepare>;
  private readonly cached: (sql: string) => Database.Statement;
  private readonly reads: SlowReads;
  /** Whether entries kept from before the word list still wait for their words (`answer-words-fill.ts`). */
  private readonly unlisted: () => boolean;

  constructor(db: Database.Database, slow: SlowReads | null = null) {
    this.stmts = prepare(db);
    this.unlisted = unlistedEntriesRemain(db);
    this.cached = statementCache(db);
    this.reads = slow ?? mainThreadReads(db);
  }

  async insert(a: AnswerRecord): Promise<void> {
    const { lastInsertRowid } = this.stmts.insert.run(...answerColumns(a));
    this.stmts.index.run(lastInsertRowid, searchWords(a.question).join(' '), searchWords(a.answer).join(' '));
    if (a.status !== 'active') return;
    for (const word of questionTokens(a.question)) this.stmts.word.run(a.topic, a.kind, word, a.id);
    this.stmts.countIn.run(a.topic, a.kind);
  }

  async get(id: string): Promise<AnswerRecord | undefined> {
    const row = this.stmts.get.get(id) as Row | undefined;
    return row && toAnswer(row);
  }

  async retire(id: string, r: Retirement): Promise<boolean> {
    const retired = this.stmts.retire.get(r.reason, r.by, r.at, id) as { topic: string; kind: string } | undefined;
    if (retired === undefined) return false;
    this.stmts.forget.run(id);
    this.stmts.countOut.run(retired.topic, retired.kind);
    return true;
  }

  async activeTopics(): Promise<Array<{ topic: string; kind: string }>> {
    return this.stmts.activeTopics.all() as Array<{ topic: string; kind: string }>;
  }

  async stats(staleBefore: number): Promise<AnswerStats> {
    return (await this.reads.get(ANSWER_STATS, [staleBefore, staleBefore])) as unknown as AnswerStats;
  }

  async refresh(id: string, r: AnswerRefresh): Promise<boolean> {
    const row = this.stmts.refresh.get(r.answer, json(r.structured), r.verifiedAt, id) as { rowid: number } | undefined;
    if (row === undefined) return false;
    this.stmts.reindex.run(searchWords(r.answer).join(' '), row.rowid);
    return true;
  }

  async countReuse(id: string): Promise<void> {
    this.stmts.countReuse.run(id);
  }

  async reuseCandidates(query: ReuseQuery): Promise<AnswerRecord[]> {
    if (query.words.length === 0) return [];
    const holding = `FROM answer_words WHERE topic = ? AND kind = ? AND word IN (${query.words.map(() => '?').join(', ')})`;
    let found = `SELECT answer_id, COUNT(*) AS shared ${holding} GROUP BY answer_id`;
    const params: unknown[] = [query.topic, query.kind, ...query.words];
    if (this.unlisted()) {
      // Entries kept from before the word list, not reached by its filling yet: read directly.
      found = `SELECT answer_id, max(shared) AS shared FROM (${found} UNION ALL ${UNFILLED_ENTRIES}) WHERE shared > 0 GROUP BY answer_id`;
      params.push(query.words.join(' '), query.topic, query.kind);
    } else if (this.cached(`SELECT 1 ${holding} LIMIT 1`).get(...params) === undefined) {
      // Most submits find no entry: asked alone, that costs a tenth of the query that orders the entries.
      return [];
    }
    const own = query.consumerId === undefined ? '' : ' AND (a.consumer_id = ? OR a.consumer_id IS NULL)';
    const rows = this.cached(
      `SELECT a.* FROM (${found}) w JOIN answers a ON a.id = w.answer_id
        WHERE a.status = 'active'${own}
        ORDER BY a.verified_at >= ? DESC, w.shared DESC, a.verified_at DESC, a.id LIMIT ?`,
    ).all(...params, ...(query.consumerId === undefined ? [] : [query.consumerId]), query.staleBefore, query.limit) as Row[];
    return rows.map(toAnswer);
  }

  async search(query: AnswerQuery): Promise<AnswerPage> {
    const words = query.q === undefined ? null : queryWords(query.q);
    if (words !== null && words.length === 0) return { items: [], next_cursor: null };
    const filters: Array<[string, unknown]> = [
      ['a.topic = ?', query.topic],
      ['a.consumer_id = ?', query.consumerId],
      ...answerStatusFilter(query),
    ];
    if (words === null) {
      const { where, values } = whereClause([...filters, ['a.id < ?', query.cursor]]);
      const rows = this.cached(`SELECT a.* FROM answers a ${where} ORDER BY a.id DESC LIMIT ?`).all(...values, query.limit + 1) as Row[];
      const items = rows.slice(0, query.limit).map(toAnswer);
      return { items, next_cursor: rows.length > query.limit ? items.at(-1)!.id : null };
    }
    const offset = rankedOffset(query.cursor);
    // Off this thread when the store has a reading thread: a common word matches much of the library.
    const rows = await rankedPage(this.reads, words, filters, offset, query.limit + 1);
    const items = rows.slice(0, query.limit).map((r) => ({ ...toAnswer(r), score: r.score as number }));
    return { items, next_cursor: rows.length > query.limit ? String(offset + query.limit) : null };
  }
}
