import { describe, expect, it } from 'vitest';
import { confidenceText, draftedQuestion, humanize, structuredIsVerbatim, timeAgo } from '../../web/src/format.js';

describe('UI formatting', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  it('timeAgo', () => {
    expect(timeAgo('2026-11-21T11:59:30Z', now)).toBe('just now');
    expect(timeAgo('2026-11-21T11:55:00Z', now)).toBe('5 min ago');
    expect(timeAgo('2026-11-21T09:00:00Z', now)).toBe('3 h ago');
    expect(timeAgo('2026-11-20T12:00:00Z', now)).toBe('1 day ago');
    expect(timeAgo('2026-11-18T12:00:00Z', now)).toBe('3 days ago');
    expect(timeAgo('2026-11-21T12:00:05Z', now)).toBe('just now'); // a server clock slightly ahead
  });

  it('confidence as a percentage; null is a build without an LLM', () => {
    expect(confidenceText(0.824)).toBe('82%');
    expect(confidenceText(null)).toBe('not rated (no LLM)');
  });

  it('with an LLM, a null confidence means structuring fell back', () => {
    expect(confidenceText(null, { structured: false })).toBe('not rated (structuring fell back)');
    expect(confidenceText(0.5, { structured: true })).toBe('50%');
  });

  it('shows the drafted question only when it differs from the raw one', () => {
    expect(draftedQuestion({ question: 'Grace period?', asked_question: 'How many days is the grace period?' })).toBe('How many days is the grace period?');
    expect(draftedQuestion({ question: 'Grace period?', asked_question: 'Grace period?' })).toBeNull();
    expect(draftedQuestion({ question: 'Grace period?', asked_question: null })).toBeNull();
  });

  it('recognises a structured form that only repeats the answer', () => {
    expect(structuredIsVerbatim({ text: 'Thirty days.' }, 'Thirty days.')).toBe(true);
    expect(structuredIsVerbatim({ text: 'Thirty days' }, 'Thirty days.')).toBe(false);
    expect(structuredIsVerbatim({ summary: 'x', facts: [] }, 'x')).toBe(false);
    expect(structuredIsVerbatim(null, '')).toBe(false);
  });

  it('humanize audit types', () => {
    expect(humanize('delivery_failed')).toBe('Delivery failed');
  });
});
