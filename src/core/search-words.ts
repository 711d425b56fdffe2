/**
 * The words a text is searched by, the same on every storage engine: each engine is fed only these
 * (never the raw text), so an entry found on SQLite is found on PostgreSQL. A word is a run of Unicode
 * letters and digits, lower-cased; anything else separates words. Words longer than `MAX_WORD` are
 * dropped: nobody searches by them, and PostgreSQL refuses very long lexemes.
 */
export const MAX_WORD = 64;

export function searchWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length <= MAX_WORD);
}

/** The distinct words of a query, in the order they first appear (an engine ORs them). */
export function queryWords(text: string): string[] {
  return [...new Set(searchWords(text))];
}
