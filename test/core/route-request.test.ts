import { describe, expect, it } from 'vitest';
import { ExpertRegistry } from '../../src/core/expert-registry.js';
import { normalizeTopic, topicTokens, jaccard } from '../../src/core/normalize-topic.js';
import { chooseExperts, findCandidates, type ExpertLoad, type RouteDecision } from '../../src/core/route-request.js';

const registry = new ExpertRegistry([
  { id: 'dana', name: 'Dana', topics: ['billing', 'invoice disputes'] },
  { id: 'lee', name: 'Lee', topics: ['Billing', 'payments'] },
  { id: 'ana', name: 'Ana', topics: ['billing'] },
  { id: 'sam', name: 'Sam', topics: ['kubernetes deployments', 'on-call'] },
  { id: 'kim', name: 'Kim', topics: ['kubernetes networking'] },
  { id: 'ola', name: 'Ola', topics: ['zahlungs-verzug'] },
  { id: 'pat', name: 'Pat', topics: ['payments processing'] },
]);
const fallbacks = { security: { fallback: 'sam' }, legal: { fallback: 'kim' } };
const limits = { max_open_asks_per_expert: 3, max_asks_per_expert_per_day: 5 };
const idle: ExpertLoad = { muted: false, openAsks: 0, queuedAsks: 0, asksToday: 0 };

function route(topic: string, loads: Record<string, Partial<ExpertLoad>> = {}, targets: string[] | null = null): RouteDecision {
  const candidates = findCandidates(normalizeTopic(topic), targets, registry, fallbacks);
  const map = new Map(Object.entries(loads).map(([id, l]) => [id, { ...idle, ...l }]));
  return chooseExperts(candidates, map, limits, (id) => registry.get(id)!.order);
}

const asks = (step: string, ...ids: string[]) => ({ outcome: 'ask', step, ask: ids, waitFor: [] });

describe('routing (seed steps 1–5 and SPEC §3)', () => {
  it.each([
    // [case, topic, loads, targets, expected]
    ['1: target override skips routing', 'billing', {}, ['sam'], asks('target', 'sam')],
    ['1: every available target is asked', 'anything', {}, ['sam', 'lee'], asks('target', 'sam', 'lee')],
    ['1: capped target waits, others asked', 'x', { lee: { openAsks: 3 } }, ['sam', 'lee'], { outcome: 'ask', step: 'target', ask: ['sam'], waitFor: ['lee'] }],
    ['1: all targets capped: held for them', 'x', { lee: { asksToday: 5 } }, ['lee'], { outcome: 'held', step: 'target', waitFor: ['lee'] }],
    ['1: muted targets skipped', 'x', { lee: { muted: true } }, ['lee', 'sam'], asks('target', 'sam')],
    ['1: all targets muted: no_expert_found', 'x', { lee: { muted: true } }, ['lee'], { outcome: 'failed', code: 'no_expert_found' }],
    ['2: exact match after normalization', '  BILLING  ', {}, null, asks('exact', 'dana')],
    ['2: tie → fewest open asks', 'billing', { dana: { openAsks: 2 }, lee: { openAsks: 1 }, ana: { openAsks: 1, asksToday: 1 } }, null, asks('exact', 'lee')],
    ['2: planned (queued) asks count as load', 'billing', { dana: { queuedAsks: 1 }, lee: { openAsks: 1 } }, null, asks('exact', 'ana')],
    ['2: tie → fewest asks today', 'billing', { dana: { asksToday: 2 }, lee: { asksToday: 1 }, ana: { asksToday: 3 } }, null, asks('exact', 'lee')],
    ['2: full tie → registry order', 'billing', {}, null, asks('exact', 'dana')],
    ['2: muted exact match skipped', 'billing', { dana: { muted: true } }, null, asks('exact', 'lee')],
    ['2: open-asks cap skipped', 'billing', { dana: { openAsks: 3 }, lee: { openAsks: 3 } }, null, asks('exact', 'ana')],
    ['2: daily cap skipped', 'billing', { dana: { asksToday: 5 }, lee: { asksToday: 5 } }, null, asks('exact', 'ana')],
    ['2: all exact capped, no other: held', 'billing', { dana: { openAsks: 3 }, lee: { asksToday: 5 }, ana: { openAsks: 9 } }, null, { outcome: 'held', step: 'exact', waitFor: [] }],
    ['2: all exact muted: no_expert_found', 'billing', { dana: { muted: true }, lee: { muted: true }, ana: { muted: true } }, null, { outcome: 'failed', code: 'no_expert_found' }],
    ['3: fuzzy 2/3 overlap', 'invoice disputes process', {}, null, asks('fuzzy', 'dana')],
    ['3: fuzzy exactly 0.5 accepted', 'invoice disputes process flow', {}, null, asks('fuzzy', 'dana')],
    ['3: fuzzy just below 0.5 (0.4) refused', 'invoice disputes process flow now', {}, null, { outcome: 'failed', code: 'no_expert_found' }],
    ['3: higher score wins over lower load', 'kubernetes deployments', {}, null, asks('exact', 'sam')],
    ['3: fuzzy best score first', 'kubernetes deployments prod', { sam: { openAsks: 2 } }, null, asks('fuzzy', 'sam')],
    ['3: fuzzy equal scores → fewest open asks', 'kubernetes', { sam: { openAsks: 1 } }, null, asks('fuzzy', 'kim')],
    ['3: capped fuzzy skipped for next', 'kubernetes', { kim: { openAsks: 3 } }, null, asks('fuzzy', 'sam')],
    ['3: unicode tokens', 'Zahlungs Verzug', {}, null, asks('fuzzy', 'ola')],
    ['4: topic fallback', 'security', {}, null, asks('fallback', 'sam')],
    ['4: fallback capped: held', 'security', { sam: { openAsks: 3 } }, null, { outcome: 'held', step: 'fallback', waitFor: [] }],
    ['4: fallback muted: no_expert_found', 'legal', { kim: { muted: true } }, null, { outcome: 'failed', code: 'no_expert_found' }],
    ['5: nothing matches: no_expert_found', 'gardening', {}, null, { outcome: 'failed', code: 'no_expert_found' }],
  ] as const)('%s', (_case, topic, loads, targets, expected) => {
    expect(route(topic, loads as Record<string, Partial<ExpertLoad>>, targets ? [...targets] : null)).toEqual(expected);
  });

  it('exact matches come before fuzzy ones even when the exact ones are busier', () => {
    expect(route('payments', { lee: { openAsks: 2 } })).toEqual(asks('exact', 'lee'));
  });

  it('a capped exact match falls through to a fuzzy candidate', () => {
    expect(route('payments', { lee: { openAsks: 3 } })).toEqual(asks('fuzzy', 'pat'));
    expect(route('payments', { lee: { openAsks: 3 }, pat: { asksToday: 5 } })).toEqual({ outcome: 'held', step: 'exact', waitFor: [] });
  });
});

describe('topic normalization and overlap', () => {
  it('lowercases, trims and collapses whitespace', () => {
    expect(normalizeTopic('  Invoice \t  Disputes\n')).toBe('invoice disputes');
  });
  it('splits tokens on any non-letter/digit run', () => {
    expect([...topicTokens('on-call / K8s_ops')]).toEqual(['on', 'call', 'k8s', 'ops']);
  });
  it('is Jaccard over token sets', () => {
    expect(jaccard(new Set(['a', 'b']), new Set(['b', 'c']))).toBeCloseTo(1 / 3);
    expect(jaccard(new Set(['a', 'b']), new Set(['a', 'b']))).toBe(1);
  });
});

describe('an expert’s own caps', () => {
  const own = new ExpertRegistry([
    { id: 'ida', name: 'Ida', topics: ['tax'], max_open_asks: 1 },
    { id: 'bo', name: 'Bo', topics: ['tax'], max_asks_per_day: 2 },
    { id: 'cy', name: 'Cy', topics: ['tax'] },
  ]);
  const routeOwn = (loads: Record<string, Partial<ExpertLoad>>) => {
    const map = new Map(Object.entries(loads).map(([id, l]) => [id, { ...idle, ...l }]));
    return chooseExperts(findCandidates('tax', null, own, {}), map, limits, (id) => own.get(id)!.order, (id) => own.get(id));
  };

  it('override the policy’s caps for that expert only', () => {
    expect(routeOwn({ ida: { openAsks: 1 } })).toEqual(asks('exact', 'bo'));
    expect(routeOwn({ ida: { openAsks: 1 }, bo: { asksToday: 2, openAsks: 0 } })).toEqual(asks('exact', 'cy'));
    // Cy has no own caps: the policy's 3 open asks apply.
    expect(routeOwn({ ida: { openAsks: 1 }, bo: { asksToday: 2 }, cy: { openAsks: 2 } })).toEqual(asks('exact', 'cy'));
    expect(routeOwn({ ida: { openAsks: 1 }, bo: { asksToday: 2 }, cy: { openAsks: 3 } })).toEqual({ outcome: 'held', step: 'exact', waitFor: [] });
  });

  it('may be above the policy’s caps', () => {
    const generous = new ExpertRegistry([{ id: 'ida', name: 'Ida', topics: ['tax'], max_open_asks: 10 }]);
    const map = new Map([['ida', { ...idle, openAsks: 5 }]]);
    expect(chooseExperts(findCandidates('tax', null, generous, {}), map, limits, () => 0, (id) => generous.get(id))).toEqual(asks('exact', 'ida'));
  });
});

describe('routing prefers who can answer now', () => {
  const T = Date.parse('2026-11-24T12:00:00Z');
  const H = 3_600_000;
  /** `from`: when each expert can next be asked (T: now); experts not listed can be asked any time. */
  const routeAt = (topic: string, from: Record<string, number | null>, loads: Record<string, Partial<ExpertLoad>> = {}) => {
    const map = new Map(Object.entries(loads).map(([id, l]) => [id, { ...idle, ...l }]));
    const facts = (id: string) => ({ ...registry.get(id)!, ...(id in from ? { availableFrom: from[id] } : {}) });
    return chooseExperts(findCandidates(normalizeTopic(topic), null, registry, fallbacks), map, limits, (id) => registry.get(id)!.order, facts);
  };

  it.each([
    ['available now before registry order', 'billing', { dana: T + 9 * H, lee: T, ana: T }, {}, asks('exact', 'lee')],
    ['available now before fewer open asks', 'billing', { dana: T + H, lee: T + H, ana: T }, { ana: { openAsks: 2 } }, asks('exact', 'ana')],
    ['then the existing ties among those available now', 'billing', { dana: T, lee: T, ana: T }, { dana: { openAsks: 1 } }, asks('exact', 'lee')],
    ['nobody now: the soonest available', 'billing', { dana: T + 5 * H, lee: T + 2 * H, ana: T + 3 * H }, {}, asks('exact', 'lee')],
    ['nobody now, same time: the existing ties', 'billing', { dana: T + 2 * H, lee: T + 2 * H, ana: T + 2 * H }, { dana: { asksToday: 1 } }, asks('exact', 'lee')],
    ['no known time ranks last', 'billing', { dana: null, lee: T + 40 * H, ana: null }, {}, asks('exact', 'lee')],
    ['a capped expert available now is skipped for one who is not', 'billing', { dana: T + H, lee: T, ana: T + 2 * H }, { lee: { openAsks: 3 } }, asks('exact', 'dana')],
    ['an available fuzzy match before an exact one off work', 'payments', { lee: T + 8 * H, pat: T }, {}, asks('fuzzy', 'pat')],
  ])('%s', (_name, topic, from, loads, expected) => {
    expect(routeAt(topic, from, loads)).toEqual(expected);
  });
});
