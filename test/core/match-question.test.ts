import { describe, expect, it } from 'vitest';
import { bestMatch, questionScore, questionTokens } from '../../src/core/match-question.js';

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
});
