import { describe, expect, it } from 'vitest';
import { answersHash, insightsHash, parseRoute, queueHash } from '../../web/src/routes.js';

describe('the Answers page address', () => {
  it('a shared search link opens the page with its words, topic and status; empty filters are left out of the link', () => {
    expect(parseRoute('#/answers?q=refund+window&topic=billing&status=stale')).toEqual({
      view: 'answers',
      filters: { q: 'refund window', topic: 'billing', status: 'stale' },
    });
    expect(parseRoute('#/answers')).toEqual({ view: 'answers', filters: { q: '', topic: '', status: '' } });
    expect(answersHash({ q: ' refund & credit ', topic: '', status: '' })).toBe('#/answers?q=refund+%26+credit');
    expect(parseRoute(answersHash({ q: 'refund & credit', topic: 'Billing', status: 'any' }))).toEqual({
      view: 'answers',
      filters: { q: 'refund & credit', topic: 'Billing', status: 'any' },
    });
  });
});

describe('the queue address', () => {
  it('"Waiting for my vote" is a link one can keep; without it, the whole queue', () => {
    expect(parseRoute(queueHash(true))).toEqual({ view: 'queue', mine: true });
    expect(parseRoute(queueHash(false))).toEqual({ view: 'queue' });
    expect(parseRoute('#/?mine=false')).toEqual({ view: 'queue' });
    expect(parseRoute('')).toEqual({ view: 'queue' });
  });
});

describe('the Insights page address', () => {
  it('a shared link opens the page with its range or days and its filters; empty ones are left out', () => {
    expect(parseRoute('#/insights')).toEqual({ view: 'insights', filters: { range: '', from: '', to: '', topic: '', expert: '', consumer: '' } });
    const filters = { range: '', from: '2026-11-02', to: '2026-11-29', topic: 'billing & tax', expert: 'dana', consumer: '' };
    expect(insightsHash(filters)).toBe('#/insights?from=2026-11-02&to=2026-11-29&topic=billing+%26+tax&expert=dana');
    expect(parseRoute(insightsHash(filters))).toEqual({ view: 'insights', filters });
    expect(insightsHash({ ...filters, from: '', to: '', range: '90d', topic: '', expert: '' })).toBe('#/insights?range=90d');
  });
});
