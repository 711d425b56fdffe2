import { jaccard, normalizeTopic } from './normalize-topic.js';

/**
 * Words that say how a question is asked rather than what it is about. Two questions sharing only
 * these ("how do I …", "what is the …") are not the same question, so they are left out of both the
 * score and the index lookup. Short on purpose: a longer list starts removing words that matter
 * ("not", "after", "before" change what is asked). "us" and "this" are kept: "US customers", "this
 * week". Greetings ("hi", "thanks", "quick question") say nothing of what is asked either.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'and', 'or', 'of', 'to', 'in', 'on', 'at', 'for', 'by', 'with', 'from', 'as', 'into', 'about',
  'is', 'are', 'was', 'were', 'be', 'been', 'being', 'am', 'do', 'does', 'did', 'done', 'have', 'has', 'had',
  'can', 'could', 'should', 'would', 'will', 'shall', 'may', 'might', 'must',
  'i', 'me', 'my', 'we', 'our', 'you', 'your', 'it', 'its', 'they', 'them', 'their', 'that', 'these', 'those',
  'what', 'which', 'who', 'whom', 'how', 'why', 'when', 'where', 'there', 'here',
  'please', 'any', 'some', 'so', 'if', 'then', 'than', 'just', 'also',
  'hi', 'hello', 'hey', 'thanks', 'thank', 'quick', 'question',
]);

/**
 * Question words that say what kind of answer is wanted: left out of the score (so "which" and "what"
 * do not keep two questions apart), but a question that asks "which" where the entry asked "who" is
 * another question. "how" and "what" are not among them: "how do I" and "what is" ask alike.
 */
const ASKS_FOR: ReadonlySet<string> = new Set(['which', 'who', 'when', 'where', 'why']);

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
 * Whether one question swaps a word of the other for another: each has a word (or question word) the
 * other lacks. "refund window for annual plans" and "… monthly plans" share most words yet ask
 * different things, and a score of shared words cannot tell such a swap from a synonym; a question
 * that only adds words to the other ("in production", "for a customer") or leaves some out is taken
 * for the same question. Synonyms are thereby missed: with an LLM configured, the model judges those.
 */
export function swapsAWord(a: string, b: string): boolean {
  const words = (q: string) => {
    const all = normalizeTopic(q.normalize('NFC')).split(/[^\p{L}\p{M}\p{N}]+/u);
    return new Set([...questionTokens(q), ...all.filter((w) => ASKS_FOR.has(w))]);
  };
  const ofA = words(a);
  const ofB = words(b);
  return [...ofA].some((w) => !ofB.has(w)) && [...ofB].some((w) => !ofA.has(w));
}

/**
 * The entry to offer for a question: the highest score at or above `minScore` among entries naming
 * the same numbers and swapping no word (unless `swaps: 'allowed'`: the model judges those), ties going to the most recently verified (then the smaller id, so the choice never
 * depends on the order entries came in); null when none is close enough.
 */
export function bestMatch<C extends MatchCandidate>(
  question: string,
  candidates: readonly C[],
  minScore: number,
  { swaps = 'refused' }: { swaps?: 'refused' | 'allowed' } = {},
): QuestionMatch<C> | null {
  const tokens = questionTokens(question);
  if (tokens.size === 0) return null;
  let best: QuestionMatch<C> | null = null;
  for (const entry of candidates) {
    const theirs = questionTokens(entry.question);
    const score = jaccard(tokens, theirs);
    if (score < minScore || score === 0 || !sameNumbers(tokens, theirs) || (swaps === 'refused' && swapsAWord(question, entry.question))) continue;
    if (best === null || score > best.score || (score === best.score && isNewer(entry, best.entry))) best = { entry, score };
  }
  return best;
}

function isNewer(a: MatchCandidate, b: MatchCandidate): boolean {
  if (a.verified_at !== b.verified_at) return a.verified_at > b.verified_at;
  return a.id < b.id;
}

/**
 * The words to look a question up by in the library: every entry that could score `minScore` or more
 * against it has at least one of them (a prefix filter, as in similarity joins), so the lookup reads
 * only the entries holding a rare word instead of every entry of the topic. An entry must name every
 * number the question names, so one number is enough. Otherwise a score of `minScore` needs
 * ⌈minScore·n⌉ of the question's n words, so an entry holding none of the n − ⌈minScore·n⌉ + 1 rarest
 * cannot reach it. Which are rarest is guessed without counting: the topic's own words, which most of
 * its entries share, come last, and longer words before shorter ones. Empty for a question without words.
 */
export function lookupWords(question: string, topic: string, minScore: number): string[] {
  const tokens = [...questionTokens(question)];
  const numbers = tokens.filter((t) => HAS_DIGIT.test(t));
  if (numbers.length > 0) return [numbers.reduce((a, b) => (b.length > a.length ? b : a))];
  const common = questionTokens(topic);
  const rarestFirst = tokens.sort((a, b) => Number(common.has(a)) - Number(common.has(b)) || b.length - a.length || (a < b ? -1 : 1));
  // The epsilon keeps 0.6 × 5 (3.0000000000000004 in floating point) at 3 words.
  const needed = Math.max(1, Math.ceil(minScore * tokens.length - 1e-9));
  return rarestFirst.slice(0, tokens.length - needed + 1);
}
