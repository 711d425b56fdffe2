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
const WORD_CHAR = '[\\p{L}\\p{M}\\p{N}]';
const WORD = new RegExp(`${WORD_CHAR}+`, 'gu');

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

/**
 * Text of printable ASCII, tabs and line breaks: composed already, and its words once lower-cased are
 * the runs of `a-z` and `0-9`, found without Unicode property classes (several times faster, and
 * every submit's question is split). Anything else takes the general path, which finds the same words.
 */
const PLAIN_ASCII = /^[\t\n\r -~]*$/;
const ASCII_WORD = /[a-z0-9]+/g;

/** The words of `text`, in order, repeats included. */
export function searchWords(text: string): string[] {
  if (PLAIN_ASCII.test(text)) {
    const words = text.toLowerCase().match(ASCII_WORD) ?? [];
    for (let i = 0; i < words.length; i++) words[i] = truncate(words[i]!);
    return words;
  }
  return Array.from(foldForSearch(text).matchAll(WORD), (m) => truncate(m[0]));
}

/** The distinct words a request is found by: those of its question and of the question its experts were asked. */
export function requestSearchWords(question: string, askedQuestion: string | null): string[] {
  return [...new Set([...searchWords(question), ...(askedQuestion === null ? [] : searchWords(askedQuestion))])];
}

/** Whether every word of `searched` starts some word of `words`: what a text search matches. */
export function startsWords(searched: readonly string[], words: readonly string[]): boolean {
  return searched.every((s) => words.some((w) => w.startsWith(s)));
}

const escapeRegExp = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * For each searched word, a test of whether it starts a word of a text, as `startsWords` of the
 * text's words would say, without splitting the text: several times faster, for checking many texts.
 */
export function wordStartTests(searched: readonly string[]): Array<(folded: string) => boolean> {
  return searched.map((s) => {
    const re = new RegExp(`(?<!${WORD_CHAR})${escapeRegExp(s)}`, 'u');
    return (folded) => re.test(folded);
  });
}

/** A text as `wordStartTests` reads it: composed and lower-cased, as words are. */
export function foldForSearch(text: string): string {
  return PLAIN_ASCII.test(text) ? text.toLowerCase() : text.normalize('NFC').toLowerCase();
}
