import { describe, expect, it } from 'vitest';
import { chooseAroundAway } from '../../src/core/route-around-away.js';
import type { Candidate, ExpertLoad } from '../../src/core/route-request.js';

const LIMITS = { max_open_asks_per_expert: 2, max_asks_per_expert_per_day: 10 };
const ORDER = ['ana', 'tia', 'dee', 'ben'];
const known = new Set(ORDER);
const exact = (...ids: string[]): Candidate[] => ids.map((expertId) => ({ expertId, step: 'exact', score: 1 }));
const load = (over: Partial<ExpertLoad> = {}): ExpertLoad => ({ muted: false, openAsks: 0, queuedAsks: 0, asksToday: 0, ...over });

function route(candidates: Candidate[], away: Record<string, string | null>, loads: Record<string, Partial<ExpertLoad>> = {}) {
  return chooseAroundAway(
    candidates,
    new Map(Object.entries(loads).map(([id, l]) => [id, load(l)])),
    LIMITS,
    (id) => ORDER.indexOf(id),
    (id) => (known.has(id) ? { max_open_asks: null, max_asks_per_day: null } : undefined),
    new Map(Object.entries(away).map(([id, delegate_to]) => [id, { delegate_to }])),
  );
}

describe('routing around away experts', () => {
  it.each([
    ['nobody away: routing as usual', exact('ana', 'tia'), {}, {}, ['ana']],
    ['the expert who would be chosen is away: the delegate is asked', exact('ana', 'tia'), { ana: 'dee' }, {}, ['dee']],
    ['the delegate takes precedence over a colleague ranked after the away expert', exact('ana', 'tia'), { ana: 'dee' }, { tia: {} }, ['dee']],
    ['an away expert who would not be chosen changes nothing', exact('ana', 'tia'), { tia: 'dee' }, { tia: {} }, ['ana']],
    ['no delegate: passed over like a muted expert', exact('ana', 'tia'), { ana: null }, {}, ['tia']],
    ['a muted delegate cannot stand in: the away expert is passed over', exact('ana', 'tia'), { ana: 'dee' }, { dee: { muted: true } }, ['tia']],
    ['a capped delegate cannot stand in', exact('ana', 'tia'), { ana: 'dee' }, { dee: { openAsks: 2 } }, ['tia']],
    ['a delegate who is away too cannot stand in', exact('ana', 'tia'), { ana: 'dee', dee: 'ben' }, {}, ['tia']],
    ['an unknown delegate cannot stand in', exact('ana', 'tia'), { ana: 'gone' }, {}, ['tia']],
  ] as const)('%s', (_, candidates, away, loads, asked) => {
    expect(route([...candidates], away, loads)).toMatchObject({ outcome: 'ask', ask: asked });
  });

  it('listed targets: each away target is replaced by their delegate, once', () => {
    const targets: Candidate[] = ['ana', 'tia'].map((expertId) => ({ expertId, step: 'target', score: 1 }));
    expect(route(targets, { ana: 'dee', tia: 'dee' })).toMatchObject({ outcome: 'ask', step: 'target', ask: ['dee'] });
  });

  it('everyone away without a delegate: nobody can be asked', () => {
    expect(route(exact('ana'), { ana: null })).toEqual({ outcome: 'failed', code: 'no_expert_found' });
  });
});
