import { jaccard, normalizeTopic, topicTokens } from './normalize-topic.js';

/**
 * The known topics nearest to one nobody handles, best first, for the `no_expert_found` message: by
 * shared words (as routing scores them) or, for a misspelling ("biling"), by shared letter triples.
 * A dozen lines of arithmetic, so no library: Dice's coefficient over character trigrams.
 */
export function closestTopics(topic: string, known: readonly string[], max = 3): string[] {
  const wanted = normalizeTopic(topic);
  const tokens = topicTokens(wanted);
  const grams = trigrams(wanted);
  return known
    .map((k) => ({ topic: k, score: Math.max(jaccard(tokens, topicTokens(k)), dice(grams, trigrams(k))) }))
    .filter((c) => c.score >= MIN_SCORE)
    .sort((a, b) => b.score - a.score || a.topic.localeCompare(b.topic))
    .slice(0, max)
    .map((c) => c.topic);
}

/** Below this, two topics share too little to be worth suggesting. */
const MIN_SCORE = 0.3;

function trigrams(text: string): Map<string, number> {
  const padded = `  ${text} `;
  const grams = new Map<string, number>();
  for (let i = 0; i + 3 <= padded.length; i++) {
    const g = padded.slice(i, i + 3);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  return grams;
}

function dice(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  let common = 0;
  let total = 0;
  for (const n of a.values()) total += n;
  for (const n of b.values()) total += n;
  for (const [g, n] of a) common += Math.min(n, b.get(g) ?? 0);
  return total === 0 ? 0 : (2 * common) / total;
}
