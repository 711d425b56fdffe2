import { describe, expect, it } from 'vitest';
import { answersHash, parseRoute, queueHash } from '../../web/src/routes.js';

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
