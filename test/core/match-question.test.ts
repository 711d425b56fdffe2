import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bestMatch, lookupWords, questionScore, questionTokens } from '../../src/core/match-question.js';

const pairs = JSON.parse(readFileSync(new URL('./reuse-pairs.json', import.meta.url), 'utf8')) as Record<'reuse' | 'distinct', Array<{ topic: string; entry: string; asked: string }>>;

describe('matching a question against the library', () => {
  it.each([
    ['How long is the REFUND window?', ['long', 'refund', 'window']],
    ['What is the refund-window for plan_2?', ['refund', 'window', 'plan', '2']],
    ['  Résumé   of the été\u00A0rules ', ['résumé', 'été', 'rules']],
    ['re\u0301sume\u0301', ['résumé']],
    ['नमस्ते दुनिया', ['नमस्ते', 'दुनिया']],
    ['What is it? How do I do it?', []],
  ])('tokens of %j are %j', (question, tokens) => {
    expect([...questionTokens(question)]).toEqual(tokens);
  });

  it.each([
    ['How long is the refund window for annual plans?', 'For annual plans, how long is the refund window?', 1],
    ['What is the refund window for annual plans?', 'How long is the refund window for annual plans?', 0.8],
    ['How long is the refund window?', 'What is the refund window length?', 0.5],
    ['How do refunds work?', 'Which currency do invoices use?', 0],
    ['What is it?', 'What is it?', 0],
  ])('%j and %j score %d', (a, b, score) => {
    expect(questionScore(a, b)).toBeCloseTo(score, 10);
    expect(questionScore(b, a)).toBeCloseTo(score, 10);
  });

  const entry = (id: string, question: string, verified_at = 0) => ({ id, question, verified_at });

  it('offers the highest score at or above the threshold, and nothing below it', () => {
    const entries = [entry('ans_1', 'How long is the refund window?'), entry('ans_2', 'How long is the refund window for annual plans?')];
    expect(bestMatch('What is the refund window for annual plans?', entries, 0.6)).toEqual({ entry: entries[1], score: 0.8 });
    expect(bestMatch('What is the refund window for annual plans?', entries, 0.81)).toBeNull();
    expect(bestMatch('What is the refund window for annual plans?', entries, 0.8)?.entry.id).toBe('ans_2');
    expect(bestMatch('Which currency do invoices use?', entries, 0)).toBeNull();
    expect(bestMatch('How is it?', entries, 0)).toBeNull();
    expect(bestMatch('refund window', [], 0.6)).toBeNull();
  });

  it('breaks a tie by the most recently verified entry, whatever order entries come in', () => {
    const older = entry('ans_1', 'refund window annual plans', 100);
    const newer = entry('ans_2', 'annual plans refund window', 200);
    expect(bestMatch('annual refund window plans', [older, newer], 0.6)?.entry.id).toBe('ans_2');
    expect(bestMatch('annual refund window plans', [newer, older], 0.6)?.entry.id).toBe('ans_2');
    const twin = entry('ans_0', 'plans refund window annual', 200);
    expect(bestMatch('annual refund window plans', [newer, twin], 0.6)?.entry.id).toBe('ans_0');
  });

  it('never offers an entry naming other numbers, however alike the rest', () => {
    const entries = [entry('ans_1', 'Crash test question number 1?'), entry('ans_2', 'Refund for invoice 1042 in 2026?')];
    expect(bestMatch('Crash test question number 2?', entries, 0.6)).toBeNull();
    expect(bestMatch('Crash test question number?', entries, 0.6)).toBeNull();
    expect(bestMatch('Crash test question, number 1', entries, 0.6)?.entry.id).toBe('ans_1');
    expect(bestMatch('Refund for invoice 1042 in 2026, please?', entries, 0.6)?.entry.id).toBe('ans_2');
    expect(bestMatch('Refund for invoice 1043 in 2026?', entries, 0.6)).toBeNull();
  });

  it('never offers an entry when the question swaps one of its words (or question words) for another; adding words is fine', () => {
    const entries = [entry('ans_1', 'How long is the refund window for annual plans?'), entry('ans_2', 'Who approves refunds above the limit?')];
    expect(bestMatch('How long is the refund window for monthly plans?', entries, 0.6)).toBeNull();
    expect(bestMatch('Hi! How long is the refund window for annual plans in the EU? Thanks', entries, 0.6)?.entry.id).toBe('ans_1');
    expect(bestMatch('When are refunds above the limit approved?', entries, 0.6)).toBeNull();
    expect(bestMatch('Who approves the refunds above the limit?', entries, 0.6)?.entry.id).toBe('ans_2');
  });

  it.each([
    // Needs 3 of 5 words: an entry holding none of the three non-topic words cannot score 0.6.
    ['What is the current billing policy for new customers?', 'billing policy', 0.6, ['customers', 'current', 'new']],
    // A number must be named by the entry too: the longest is looked up alone.
    ['What is the current billing policy for case 1042 in 2026?', 'billing policy', 0.6, ['1042']],
    // Needs 2 of 5: four words, the topic's last, the longer first.
    ['What is the current billing policy for new customers?', 'billing policy', 0.3, ['customers', 'current', 'new', 'billing']],
    ['Refund window?', 'billing', 0.6, ['refund']],
    ['Refund window?', 'billing', 0, ['refund', 'window']],
    ['What is it?', 'billing', 0.6, []],
  ])('looks %j (topic %j) up at %d by %j', (question, topic, minScore, words) => {
    expect(lookupWords(question, topic, minScore)).toEqual(words);
  });

  const offeredFound = (asked: string, entryQuestion: string, topic: string, minScore: number) => {
    const offered = bestMatch(asked, [entry('ans_1', entryQuestion)], minScore, { swaps: 'allowed' }) !== null;
    const theirs = questionTokens(entryQuestion);
    return !offered || lookupWords(asked, topic, minScore).some((w) => theirs.has(w));
  };

  it('finds every labelled pair the rule would offer, at every threshold', () => {
    for (const minScore of [0.3, 0.5, 0.6, 0.7, 0.9]) {
      for (const p of [...pairs.reuse, ...pairs.distinct]) expect(offeredFound(p.asked, p.entry, p.topic, minScore)).toBe(true);
    }
  });

  it('never misses an entry that could be offered (random questions over a small vocabulary)', () => {
    const word = fc.constantFrom('billing', 'policy', 'refund', 'window', 'annual', 'plans', 'eu', 'the', 'what', 'is', '12', '2026', 'who');
    const question = fc.array(word, { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(question, question, fc.constantFrom('billing policy', 'refund', 'payments'), fc.double({ min: 0, max: 1, noNaN: true }), (asked, theirs, topic, minScore) =>
        offeredFound(asked, theirs, topic, minScore),
      ),
      { numRuns: 2000 },
    );
  });
});
