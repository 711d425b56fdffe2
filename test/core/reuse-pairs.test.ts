import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { librarySchema } from '../../src/config/config-schema.js';
import { bestMatch } from '../../src/core/match-question.js';

/**
 * The labelled question pairs (also read by `npm run bench`'s `library` section): `reuse` pairs ask
 * the same thing in other words (reordered, other case or punctuation, politeness added, synonyms),
 * `distinct` pairs ask something else on the same topic (another entity, number, version or aspect).
 * `entry` is the library's question, `asked` the new one. Written as a person would label them, not
 * to suit the rule: a paraphrase the rule misses counts against its recall.
 */
interface Pair {
  topic: string;
  entry: string;
  asked: string;
}
const pairs = JSON.parse(readFileSync(new URL('./reuse-pairs.json', import.meta.url), 'utf8')) as { reuse: Pair[]; distinct: Pair[] };

const DEFAULT_MIN_SCORE = librarySchema.parse({}).min_score;

/** Whether the lexical rule offers the pair's entry for its new question. */
const offered = (pair: Pair, minScore: number) => bestMatch(pair.asked, [{ id: 'ans_1', question: pair.entry, verified_at: 0 }], minScore) !== null;

function figures(minScore: number) {
  const truePositives = pairs.reuse.filter((p) => offered(p, minScore)).length;
  const falsePositives = pairs.distinct.filter((p) => offered(p, minScore)).length;
  return { precision: truePositives / (truePositives + falsePositives), recall: truePositives / pairs.reuse.length };
}

/** The numbers a question names, in order: "P1", "$5,000" and "v2" name 1, 5 and 000, and 2. */
const numbersOf = (text: string) => (text.match(/\p{N}+/gu) ?? []).join(' ');

describe('the labelled question pairs', () => {
  it('hold at least 60 pairs each way, none twice, and no pair labelled both ways', () => {
    expect(pairs.reuse.length).toBeGreaterThanOrEqual(60);
    expect(pairs.distinct.length).toBeGreaterThanOrEqual(60);
    const keys = [...pairs.reuse, ...pairs.distinct].map((p) => `${p.entry}\n${p.asked}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const p of [...pairs.reuse, ...pairs.distinct]) expect(p.entry).not.toBe(p.asked);
  });

  // Measured: precision 0.976, recall 0.563 at 0.6. Word overlap alone gave 0.674 / 0.817: questions
  // differing in one entity word ("annual" / "monthly plans", "EU" / "US customers") share most of
  // their words. A question that swaps a word is no longer offered, which also misses synonyms
  // ("change" / "update"): those are the LLM's to judge.
  it('at the default threshold, at least 95% of the offers are right, and more than half the paraphrases are found', () => {
    const { precision, recall } = figures(DEFAULT_MIN_SCORE);
    expect(precision).toBeGreaterThanOrEqual(0.95);
    expect(recall).toBeGreaterThanOrEqual(0.55);
  });

  it('from a threshold of 0.85, at least 95% of the offers are right', () => {
    expect(figures(0.85).precision).toBeGreaterThanOrEqual(0.95);
  });

  it('never offers an entry for a question naming other numbers or versions, however low the threshold', () => {
    const otherNumbers = pairs.distinct.filter((p) => numbersOf(p.entry) !== numbersOf(p.asked));
    expect(otherNumbers.length).toBeGreaterThanOrEqual(8);
    expect(otherNumbers.filter((p) => offered(p, 0.01)).map((p) => p.asked)).toEqual([]);
  });
});
