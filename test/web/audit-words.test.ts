import { describe, expect, it } from 'vitest';
import { actorName, auditSentence } from '../../web/src/audit-words.js';
import { dateTime } from '../../web/src/format.js';
import { parseRoute, requestsHash } from '../../web/src/routes.js';

const NAMES: Record<string, string> = { dana: 'Dana Smith', lee: 'Lee Chen' };
const name = (id: string) => NAMES[id] ?? id;
const row = (type: string, actor: string, data: Record<string, unknown> = {}) => auditSentence({ at: '2026-11-24T10:00:00.000Z', type, actor, data }, name);

describe('audit trail in words', () => {
  it('names who acted', () => {
    expect(actorName('expert:dana', name)).toBe('Dana Smith');
    expect(actorName('reviewer:alice', name)).toBe('alice');
    expect(actorName('consumer:billing-bot', name)).toBe('billing-bot');
    expect(actorName('system', name)).toBe('expertq');
  });

  it.each([
    [row('received', 'consumer:billing-bot', { topic: 'billing', kind: 'answer', dedup_key: null }), 'billing-bot asked about topic “billing”.'],
    [row('routed', 'system', { step: 'exact', experts: ['dana'], waiting_for: [] }), 'Routed to Dana Smith (exact topic match).'],
    [row('held', 'system', { step: 'exact', waiting_for: ['dana', 'lee'] }), 'Held: every candidate is at a rate-limit cap; waiting for Dana Smith, Lee Chen.'],
    [row('asked', 'system', { expert_id: 'lee', expert_name: 'Lee Chen', via: 'escalation' }), 'Asked Lee Chen (escalation).'],
    [row('waiting_for_expert', 'system', { expert_id: 'dana', why: 'working_hours', until: null }), 'Waiting for Dana Smith to start work.'],
    [row('replied', 'expert:dana', { text: 'Thirty days.' }), 'Dana Smith replied: “Thirty days.”'],
    [row('escalated', 'system', { from: 'dana', to: 'lee', because: 'no_reply', waited: '2h' }), 'Escalated from Dana Smith to Lee Chen: no reply in time after 2h.'],
    [row('escalated', 'system', { from: 'lee', to: null, because: 'skip' }), 'Lee Chen skipped, and there is no one left to escalate to.'],
    [row('skipped', 'expert:dana', { why: 'skip' }), 'Dana Smith skipped the question.'],
    [row('expiring', 'system', { gives_up_at: '2026-11-24T12:00:00.000Z', in: '2h' }), `Subscribers were told the request gives up in 2h, at ${dateTime('2026-11-24T12:00:00.000Z')}.`],
    [row('muted', 'reviewer:alice', { ask_id: 'ask_1' }), 'alice muted the expert; the question was passed on.'],
    [row('muted', 'expert:dana', { ask_id: 'ask_1' }), 'Dana Smith muted themselves; the question was passed on.'],
    [row('decided', 'reviewer:alice', { status: 'accepted', note: 'ok', edited: true }), 'alice accepted the answer, edited before accepting, noting “ok”.'],
    [row('decided', 'reviewer:alice', { status: 'rejected', reason: 'Wrong team.' }), 'alice rejected the answer: “Wrong team.”'],
    [row('returned', 'reviewer:alice', { expert_id: 'dana', instructions: 'Cite the policy.' }), 'alice sent the answer back to Dana Smith: “Cite the policy.”'],
    [row('reused', 'system', { answer_id: 'ans_1', score: 0.8, by: 'lexical' }), 'Library answer ans_1 matched (score 0.80); no expert was asked.'],
    [row('reuse_declined', 'reviewer:alice', { answer_id: 'ans_1', proposal_id: 'prop_1', note: null }), 'alice sent library answer ans_1 back: not a match, an expert is asked.'],
    [row('stale_match', 'system', { answer_id: 'ans_1', score: 0.8 }), 'Library answer ans_1 matched (score 0.80) but is due for checking: the expert is shown it and can reply “same”.'],
    [row('failed', 'system', { code: 'no_expert_found', message: 'No expert covers “gardening”.' }), 'Failed (no expert found): No expert covers “gardening”.'],
    [row('llm_fallback', 'system', { stage: 'draft', error: 'HTTP 500' }), "The LLM's draft was not used (HTTP 500); expertq went on without it."],
    [row('llm_fallback', 'system', { stage: 'match', error: 'HTTP 500' }), "The LLM's judgement of a library answer was not used (HTTP 500); expertq went on without it."],
    [row('something_new', 'system', { ask_id: 'ask_9', count: 2 }), 'Something new: ask id ask_9, count 2.'],
  ])('%s', (sentence, expected) => {
    expect(sentence).toBe(expected);
  });

  it('times carry their zone', () => {
    expect(dateTime('2026-11-24T10:00:00.000Z', 'en-US', 'UTC')).toBe('Nov 24, 2026, 10:00:00 AM UTC');
    expect(dateTime('2026-11-24T10:00:00.000Z', 'en-GB', 'Europe/Berlin')).toBe('24 Nov 2026, 11:00:00 CET');
  });
});

describe('routes', () => {
  it('the Requests page keeps its filters in the URL', () => {
    expect(parseRoute('#/requests?status=failed&q=refund')).toEqual({ view: 'requests', filters: { status: 'failed', topic: '', consumer_id: '', q: 'refund' } });
    expect(parseRoute('#/requests/req_1')).toEqual({ view: 'request', id: 'req_1' });
    expect(requestsHash({ status: '', topic: 'billing', consumer_id: ' ', q: 'a b' })).toBe('#/requests?topic=billing&q=a+b');
    expect(parseRoute(requestsHash({ status: 'accepted', topic: 'x&y', consumer_id: '', q: '' }))).toEqual({ view: 'requests', filters: { status: 'accepted', topic: 'x&y', consumer_id: '', q: '' } });
  });
});
