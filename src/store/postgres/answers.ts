import type { AnswerRecord, Retirement } from '../../domain/answers.js';
import { questionTokens } from '../../core/match-question.js';
import { searchWords } from '../../core/search-words.js';
import { type AnswerPage, type AnswerQuery, type AnswerRefresh, type AnswerRepository, type AnswerStats, queryWords, rankedOffset, type ReuseQuery } from '../answer-repository.js';
import { ANSWER_COLUMNS, answerColumns, json, toAnswer } from '../row-records.js';
import { all, type Db, one, run, whereClause, write } from './sql.js';
import { ANSWER_STATS, answerStatusFilter } from '../shared/rules-sql.js';
import { forWhereClause, pgStatements, pgText } from '../shared/placeholders.js';
import { ANSWERS } from '../shared/answers-sql.js';

const SQL = pgStatements(ANSWERS);

/** PostgreSQL's limits on a tsvector: positions up to 16383, at most 256 of them per word. */
const MAX_POSITION = 16_383;
const MAX_POSITIONS_PER_WORD = 256;

/**
 * An entry's words as a tsvector literal: question words weighted A, answer words B, each with its
 * positions. Built here rather than by `to_tsvector`, whose parser depends on the database's locale.
 */
export function searchVector(question: string, answer: string): string {
  const positions = new Map<string, string[]>();
  let at = 0;
  for (const [text, weight] of [[question, 'A'], [answer, 'B']] as const) {
    for (const word of searchWords(text)) {
      at = Math.min(at + 1, MAX_POSITION);
      const list = positions.get(word) ?? [];
      if (list.length < MAX_POSITIONS_PER_WORD) list.push(`${at}${weight}`);
      positions.set(word, list);
    }
  }
  return [...positions].map(([word, list]) => `'${word}':${list.join(',')}`).join(' ');
}

const COUNT = ANSWER_COLUMNS.split(',').length;

/** The answer library in PostgreSQL: each entry carries its own `search` vector (GIN indexed), written with it. */
export class PgAnswers implements AnswerRepository {
  constructor(private readonly db: Db) {}

  async insert(a: AnswerRecord): Promise<void> {
    const marks = Array.from({ length: COUNT }, (_, i) => `$${i + 1}`).join(', ');
    await write(
      this.db,
      `INSERT INTO answers (${ANSWER_COLUMNS}, search) VALUES (${marks}, $${COUNT + 1}::tsvector)`,
      [...answerColumns(a), searchVector(a.question, a.answer)],
    );
    if (a.status !== 'active') return;
    await write(
      this.db,
      'INSERT INTO answer_words (topic, kind, word, answer_id) SELECT $1, $2, unnest($3::text[]), $4 ON CONFLICT DO NOTHING',
      [a.topic, a.kind, [...questionTokens(a.question)], a.id],
    );
    await write(
      this.db,
      'INSERT INTO answer_topics (topic, kind, active) VALUES ($1, $2, 1) ON CONFLICT (topic, kind) DO UPDATE SET active = answer_topics.active + 1',
      [a.topic, a.kind],
    );
  }

  async get(id: string): Promise<AnswerRecord | undefined> {
    const row = await one(this.db, `SELECT ${ANSWER_COLUMNS} FROM answers WHERE id = $1`, [id]);
    return row && toAnswer(row);
  }

  async retire(id: string, r: Retirement): Promise<boolean> {
    const retired = await one(
      this.db,
      SQL.retire,
      [r.reason, r.by, r.at, id],
    );
    if (!retired) return false;
    await write(this.db, SQL.forget, [id]);
    await write(this.db, SQL.countOut, [retired.topic, retired.kind]);
    return true;
  }

  async activeTopics(): Promise<Array<{ topic: string; kind: string }>> {
    return (await all(this.db, SQL.activeTopics)) as Array<{ topic: string; kind: string }>;
  }

  async stats(staleBefore: number): Promise<AnswerStats> {
    const row = await one(this.db, pgText(ANSWER_STATS), [staleBefore, staleBefore]);
    return row as unknown as AnswerStats;
  }

  async refresh(id: string, r: AnswerRefresh): Promise<boolean> {
    const row = await one(this.db, `SELECT question FROM answers WHERE id = $1 AND status = 'active'`, [id]);
    if (!row) return false;
    const changed = await run(
      this.db,
      `UPDATE answers SET answer = $1, structured = $2, verified_at = $3, search = $4::tsvector WHERE id = $5 AND status = 'active'`,
      [r.answer, json(r.structured), r.verifiedAt, searchVector(row.question as string, r.answer), id],
    );
    return changed === 1;
  }

  async countReuse(id: string): Promise<void> {
    await run(this.db, SQL.countReuse, [id]);
  }

  async reuseCandidates(query: ReuseQuery): Promise<AnswerRecord[]> {
    if (query.words.length === 0) return [];
    const columns = ANSWER_COLUMNS.split(', ').map((c) => `a.${c}`).join(', ');
    const own = query.consumerId === undefined ? '' : ' AND (a.consumer_id = $6 OR a.consumer_id IS NULL)';
    const rows = await all(
      this.db,
      `SELECT ${columns} FROM (SELECT answer_id, COUNT(*) AS shared FROM answer_words
          WHERE topic = $1 AND kind = $2 AND word = ANY($3::text[]) GROUP BY answer_id) w
        JOIN answers a ON a.id = w.answer_id
        WHERE a.status = 'active'${own}
        ORDER BY a.verified_at >= $4 DESC, w.shared DESC, a.verified_at DESC, a.id LIMIT $5`,
      [query.topic, query.kind, query.words, query.staleBefore, query.limit, ...(query.consumerId === undefined ? [] : [query.consumerId])],
    );
    return rows.map(toAnswer);
  }

  async search(query: AnswerQuery): Promise<AnswerPage> {
    const words = query.q === undefined ? null : queryWords(query.q);
    if (words !== null && words.length === 0) return { items: [], next_cursor: null };
    const columns = ANSWER_COLUMNS.split(', ').map((c) => `a.${c}`).join(', ');
    const filters: Array<[string, unknown]> = [['a.topic = $?', query.topic], ['a.consumer_id = $?', query.consumerId], ...answerStatusFilter(query).map(([clause, value]): [string, unknown] => [forWhereClause(clause), value])];
    if (words === null) {
      const { where, values } = whereClause([...filters, ['a.id < $?', query.cursor]]);
      const rows = await all(this.db, `SELECT ${columns} FROM answers a ${where} ORDER BY a.id DESC LIMIT $${values.length + 1}`, [...values, query.limit + 1]);
      const items = rows.slice(0, query.limit).map(toAnswer);
      return { items, next_cursor: rows.length > query.limit ? items.at(-1)!.id : null };
    }
    const offset = rankedOffset(query.cursor);
    const tsquery = words.map((w) => `'${w}'`).join(' | ');
    // $1 is the query; the filters follow it.
    const { where, values } = whereClause([['a.search @@ $?::tsquery', tsquery], ...filters]);
    const n = values.length;
    const rows = await all(
      this.db,
      `SELECT ${columns}, ts_rank(a.search, $1::tsquery, 1) AS score FROM answers a ${where}
        ORDER BY score DESC, a.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...values, query.limit + 1, offset],
    );
    const items = rows.slice(0, query.limit).map((r) => ({ ...toAnswer(r), score: r.score as number }));
    return { items, next_cursor: rows.length > query.limit ? String(offset + query.limit) : null };
  }
}
