import { requestSearchWords } from '../../core/search-words.js';
import { type Db, one, whereClause } from './sql.js';

/**
 * SQL turning a parameter of space-separated words into the `search_words` tsvector: each word
 * becomes a lexeme as it is, with no parser or dictionary between (`to_tsvector` would split and fold
 * by PostgreSQL's own rules).
 */
export const SEARCH_WORDS_OF = (param: string) => `array_to_tsvector(string_to_array(${param}::text, ' '))`;

/** The `search_words` parameter for a request's text. */
export function searchWordsOf(question: string, askedQuestion: string | null): string {
  return requestSearchWords(question, askedQuestion).join(' ');
}

/**
 * The tsquery requiring every word of `words`, passed as a parameter and read verbatim (`$1::tsquery`,
 * not `to_tsquery`, which would run the parser again): each word a quoted prefix (`'refu':*`). A word
 * never holds a quote or a backslash, but either would be escaped.
 */
export function tsQueryOf(words: readonly string[]): string {
  return words.map((w) => `'${w.replace(/['\\]/g, (c) => `\\${c}`)}':*`).join(' & ');
}

/** How many of the newest requests show how common the searched words are. */
const SAMPLE = 1000;

/**
 * A page is expected within this many newest requests (of those passing the filters) when the sample
 * says so: walking them newest first then costs a few ms, and stops at the page.
 */
const WALK = 20_000;

type Filters = Array<[clause: string, value: unknown]>;

/**
 * The statement for a page of requests passing `filters` with every word of `words`, newest first. A
 * prefix defeats the planner's word statistics: it guessed 2% of requests for a word in 13 of 95,000
 * and walked all of them newest first (270 ms). So the newest requests are sampled. When the words are
 * common there, the page is near: the newest requests are walked, every word checked through an
 * expression the index does not cover (`search_words || ''`). Otherwise the GIN index collects the
 * requests with the rarest word in the sample (a common word beside a rare one, "w zebra", would collect
 * nearly every request), and those are checked, sorted and cut to the page.
 */
export async function searchStatement(db: Db, filters: Filters, words: readonly string[], limit: number): Promise<{ sql: string; values: unknown[] }> {
  const { where, values } = whereClause(filters);
  // Hits of each word alone, then of every word at once.
  const hits = Array.from({ length: words.length + 1 }, (_, i) => `count(*) FILTER (WHERE search_words @@ $${values.length + 2 + i}::tsquery) AS "${i}"`);
  const row = await one(db, `SELECT ${hits.join(', ')} FROM (SELECT search_words FROM requests ${where} ORDER BY id DESC LIMIT $${values.length + 1}) newest`, [
    ...values, SAMPLE, ...words.map((w) => tsQueryOf([w])), tsQueryOf(words),
  ]);
  const count = (i: number) => Number(row?.[String(i)] ?? 0);
  const every = ["(search_words || ''::tsvector) @@ $?::tsquery", tsQueryOf(words)] as const;
  if (count(words.length) * (WALK / SAMPLE) >= limit) {
    const walk = whereClause([...filters, [...every]]);
    return { sql: `SELECT * FROM requests ${walk.where} ORDER BY id DESC LIMIT $${walk.values.length + 1}`, values: [...walk.values, limit] };
  }
  let rarest = 0;
  words.forEach((w, i) => {
    if (count(i) < count(rarest) || (count(i) === count(rarest) && w.length > words[rarest]!.length)) rarest = i;
  });
  const found = whereClause([...filters, ['search_words @@ $?::tsquery', tsQueryOf([words[rarest]!])]]);
  const n = found.values.length;
  return {
    sql: `WITH found AS MATERIALIZED (SELECT * FROM requests ${found.where})
      SELECT * FROM found WHERE ${every[0].replace('$?', `$${n + 1}`)} ORDER BY id DESC LIMIT $${n + 2}`,
    values: [...found.values, every[1], limit],
  };
}
