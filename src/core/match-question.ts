import { jaccard, normalizeTopic } from './normalize-topic.js';

/**
 * Words that say how a question is asked rather than what it is about. Two questions sharing only
 * these ("how do I …", "what is the …") are not the same question, so they are left out of both the
 * score and the index lookup. Short on purpose: a longer list starts removing words that matter
 * ("not", "after", "before" change what is asked).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'and', 'or', 'of', 'to', 'in', 'on', 'at', 'for', 'by', 'with', 'from', 'as', 'into', 'about',
  'is', 'are', 'was', 'were', 'be', 'been', 'being', 'am', 'do', 'does', 'did', 'done', 'have', 'has', 'had',
  'can', 'could', 'should', 'would', 'will', 'shall', 'may', 'might', 'must',
  'i', 'me', 'my', 'we', 'us', 'our', 'you', 'your', 'it', 'its', 'they', 'them', 'their', 'this', 'that', 'these', 'those',
  'what', 'which', 'who', 'whom', 'how', 'why', 'when', 'where', 'there', 'here',
  'please', 'any', 'some', 'so', 'if', 'then', 'than', 'just', 'also',
]);

/**
 * A question's tokens for matching: normalized like a topic (lower case, spaces collapsed), split on
 * anything that is not a letter or digit (a combining mark stays in its word, as in text search), stop
 * words removed.
 */
export function questionTokens(question: string): Set<string> {
  const tokens = normalizeTopic(question.normalize('NFC')).split(/[^\p{L}\p{M}\p{N}]+/u);
  return new Set(tokens.filter((t) => t.length > 0 && !STOP_WORDS.has(t)));
}

/** How alike two questions are, from 0 (no word in common) to 1 (the same words): Jaccard over their tokens. */
export function questionScore(a: string, b: string): number {
  return jaccard(questionTokens(a), questionTokens(b));
}

/** A library entry as matching sees it. */
export interface MatchCandidate {
  id: string;
  question: string;
  verified_at: number;
}

export interface QuestionMatch<C extends MatchCandidate> {
  entry: C;
  score: number;
}

const HAS_DIGIT = /\p{N}/u;

/**
 * Whether two questions name the same numbers (words with a digit: invoice numbers, versions,
 * amounts, years). "Refund for invoice 1042?" and "Refund for invoice 1043?" share most words and are
 * still different questions, so the score alone cannot tell them apart.
 */
export function sameNumbers(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const numbers = (tokens: ReadonlySet<string>) => [...tokens].filter((t) => HAS_DIGIT.test(t));
  const ofA = numbers(a);
  const ofB = numbers(b);
  return ofA.length === ofB.length && ofA.every((t) => b.has(t));
}

/**
 * The entry to offer for a question: the highest score at or above `minScore` among entries naming
 * the same numbers, ties going to the most recently verified (then the smaller id, so the choice never
 * depends on the order entries came in); null when none is close enough.
 */
export function bestMatch<C extends MatchCandidate>(question: string, candidates: readonly C[], minScore: number): QuestionMatch<C> | null {
  const tokens = questionTokens(question);
  if (tokens.size === 0) return null;
  let best: QuestionMatch<C> | null = null;
  for (const entry of candidates) {
    const theirs = questionTokens(entry.question);
    const score = jaccard(tokens, theirs);
    if (score < minScore || score === 0 || !sameNumbers(tokens, theirs)) continue;
    if (best === null || score > best.score || (score === best.score && isNewer(entry, best.entry))) best = { entry, score };
  }
  return best;
}

function isNewer(a: MatchCandidate, b: MatchCandidate): boolean {
  if (a.verified_at !== b.verified_at) return a.verified_at > b.verified_at;
  return a.id < b.id;
}
