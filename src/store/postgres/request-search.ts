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

/** How many of the newest requests show which searched word is rarest. */
const SAMPLE = 1000;

type Filters = Array<[clause: string, value: unknown]>;

/**
 * The conditions for a search of `words` among requests passing `filters`. The GIN index answers a
 * prefix by collecting every request any word it starts is in, so a common word beside a rare one
 * ("w zebra") cost 90 ms at a million requests; the planner cannot tell which word of several is rare.
 * So the newest requests show it, and the index is asked for that word alone; every word is checked
 * on what it finds through an expression the index does not cover (`search_words || ''`). One word
 * alone needs no sample: the planner's statistics judge it.
 */
export async function searchConditions(db: Db, filters: Filters, words: readonly string[]): Promise<Filters> {
  if (words.length === 1) return [['search_words @@ $?::tsquery', tsQueryOf(words)]];
  const { where, values } = whereClause(filters);
  const hits = words.map((_, i) => `count(*) FILTER (WHERE search_words @@ $${values.length + 2 + i}::tsquery) AS "${i}"`);
  const row = await one(db, `SELECT ${hits.join(', ')} FROM (SELECT search_words FROM requests ${where} ORDER BY id DESC LIMIT $${values.length + 1}) newest`, [
    ...values, SAMPLE, ...words.map((w) => tsQueryOf([w])),
  ]);
  let rarest = 0;
  words.forEach((w, i) => {
    const [n, best] = [Number(row?.[String(i)] ?? 0), Number(row?.[String(rarest)] ?? 0)];
    if (n < best || (n === best && w.length > words[rarest]!.length)) rarest = i;
  });
  return [
    ['search_words @@ $?::tsquery', tsQueryOf([words[rarest]!])],
    ["(search_words || ''::tsvector) @@ $?::tsquery", tsQueryOf(words)],
  ];
}
