/**
 * The words text search knows, defined once for what is indexed and for what is searched, on every
 * engine. The engines' own tokenizers only ever see these words joined by single spaces: SQLite's
 * FTS5 and PostgreSQL's text search would otherwise each decide differently what a word is, how case
 * folds and what an accent means, and the engines would find different requests.
 *
 * A word is a run of Unicode letters, combining marks and digits (marks, so that "é" written as "e"
 * plus an accent, or a Devanagari vowel sign, stays inside its word), after NFC normalization,
 * lower-cased. Accents are kept: "resume" does not find "résumé".
 */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * Longer words are indexed by their first this many characters. PostgreSQL refuses a lexeme over
 * 2047 bytes; a search is at most 200 characters long, so a searched word is still a prefix of a long
 * word exactly when it is a prefix of its indexed start.
 */
export const MAX_WORD_LENGTH = 200;

function truncate(word: string): string {
  if (word.length <= MAX_WORD_LENGTH) return word;
  return Array.from(word).slice(0, MAX_WORD_LENGTH).join('');
}

/** The words of `text`, in order, repeats included. */
export function searchWords(text: string): string[] {
  return Array.from(text.normalize('NFC').toLowerCase().matchAll(WORD), (m) => truncate(m[0]));
}

/** The distinct words a request is found by: those of its question and of the question its experts were asked. */
export function requestSearchWords(question: string, askedQuestion: string | null): string[] {
  return [...new Set([...searchWords(question), ...(askedQuestion === null ? [] : searchWords(askedQuestion))])];
}
