import { requestSearchWords, searchWords } from '../../core/search-words.js';

/**
 * SQL turning a parameter of space-separated words into the `search_words` tsvector: each word
 * becomes a lexeme as it is, with no parser or dictionary between (`to_tsvector` would split and fold
 * by PostgreSQL's own rules).
 */
export const SEARCH_WORDS_OF = (param: string) => `array_to_tsvector(string_to_array(${param}, ' '))`;

/** The `search_words` parameter for a request's text. */
export function searchWordsOf(question: string, askedQuestion: string | null): string {
  return requestSearchWords(question, askedQuestion).join(' ');
}

/**
 * The tsquery for `text`, passed as a parameter and read verbatim (`$1::tsquery`, not `to_tsquery`,
 * which would run the parser again): every word of it as a quoted prefix (`'refu':*`), all required.
 * A word never holds a quote or a backslash, but either would be escaped. Undefined when `text` has
 * no word: such a search finds nothing.
 */
export function tsQuery(text: string): string | undefined {
  const words = searchWords(text);
  return words.length === 0 ? undefined : words.map((w) => `'${w.replace(/['\\]/g, (c) => `\\${c}`)}':*`).join(' & ');
}
