import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => t.close());

describe('POST /api/v1/requests', () => {
  it('routes a question to the exact-match expert, asks once and records the whole trail', async () => {
    const res = await t.call('POST', '/api/v1/requests', submitBody({ topic: '  Billing ' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ request_id: expect.stringMatching(/^req_/), status: 'queued', request_status: 'asked' });

    const req = (await t.call('GET', `/api/v1/requests/${res.body.request_id}`)).body;
    expect(req).toMatchObject({
      status: 'asked',
      topic: 'billing',
      kind: 'answer',
      consumer_id: 'billing-bot',
      context: { asked_because: 'the invoice total does not match the ledger' },
      subscribers: [], // billing-bot is not a registered consumer
      proposal_id: null,
      reason: null,
      routing_policy: { escalation_after: 'PT2H', give_up_after: 'P1D', quiet_hours: null, max_open_asks_per_expert: 3, max_asks_per_expert_per_day: 5 },
    });
    expect(req.asks).toEqual([{ id: expect.stringMatching(/^ask_/), expert_id: 'dana', sent_at: '2026-11-23T10:00:00.000Z', channel: 'console', state: 'open' }]);
    expect(t.messages()).toHaveLength(1);

    const audit = (await t.call('GET', `/api/v1/audit?request_id=${req.id}`)).body;
    expect(audit.map((e: { type: string }) => e.type)).toEqual(['received', 'routed', 'asked']);
    expect(audit[1].data).toMatchObject({ step: 'exact', experts: ['dana'] });
  });

  it('sends an ask with the six elements in the fixed order', async () => {
    await t.call('POST', '/api/v1/requests', submitBody());
    const [message] = t.messages();
    const order = [
      "I'm an automated assistant for Acme (not a person)",
      'The billing-bot service is asking because: the invoice total does not match the ledger',
      'Question: What is the grace period for disputed invoices?',
      'A one- or two-sentence reply is all that is needed.',
      'recorded with your name (Dana Smith) as the source, after human review',
      'Reply `mute` to stop receiving questions, or `skip` to pass this one along.',
    ].map((part) => message!.indexOf(part));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('asks every listed target expert directly, skipping routing', async () => {
    const res = await t.call('POST', '/api/v1/requests', submitBody({ topic: 'billing', target_experts: ['sam', 'lee'] }));
    const req = (await t.call('GET', `/api/v1/requests/${res.body.request_id}`)).body;
    expect(req.asks.map((a: { expert_id: string }) => a.expert_id)).toEqual(['sam', 'lee']);
    expect(t.messages().map((m) => m.split('\n')[0])).toEqual([
      expect.stringContaining('message to Sam Okafor (sam)'),
      expect.stringContaining('message to Lee Chen (lee)'),
    ]);
  });

  it('uses the topic fallback, and fails with no_expert_found when nothing matches', async () => {
    const fallback = await t.call('POST', '/api/v1/requests', submitBody({ topic: 'Security' }));
    expect((await t.call('GET', `/api/v1/requests/${fallback.body.request_id}`)).body.asks[0].expert_id).toBe('sam');

    const none = await t.call('POST', '/api/v1/requests', submitBody({ topic: 'gardening' }));
    expect(none.body).toEqual({
      request_id: expect.stringMatching(/^req_/),
      status: 'failed',
      request_status: 'failed',
      reason: { code: 'no_expert_found', message: expect.any(String) },
    });
    const req = (await t.call('GET', `/api/v1/requests/${none.body.request_id}`)).body;
    expect(req).toMatchObject({ status: 'failed', reason: { code: 'no_expert_found' }, asks: [] });
  });

  it('holds a request when every candidate is capped, and never forces it onto a busy expert', async () => {
    const policy = { max_open_asks_per_expert: 1 };
    await t.call('POST', '/api/v1/requests', submitBody({ routing_policy: policy }));
    await t.call('POST', '/api/v1/requests', submitBody({ routing_policy: policy }));
    const third = await t.call('POST', '/api/v1/requests', submitBody({ routing_policy: policy }));
    expect(third.body.status).toBe('queued');
    const req = (await t.call('GET', `/api/v1/requests/${third.body.request_id}`)).body;
    expect(req).toMatchObject({ status: 'queued', asks: [] });
    const audit = (await t.call('GET', `/api/v1/audit?request_id=${req.id}`)).body;
    expect(audit.map((e: { type: string }) => e.type)).toEqual(['received', 'held']);
    const experts = (await t.call('GET', '/api/v1/experts')).body;
    expect(experts.find((e: { id: string }) => e.id === 'dana').open_asks).toBe(1);
    expect(experts.find((e: { id: string }) => e.id === 'lee').open_asks).toBe(1);
    expect(t.messages()).toHaveLength(2);
  });

  it('applies routing_policy for that request only, durations as ISO-8601 on the wire', async () => {
    const res = await t.call('POST', '/api/v1/requests', submitBody({ routing_policy: { escalation_after: 'PT30M', give_up_after: '4h' } }));
    const req = (await t.call('GET', `/api/v1/requests/${res.body.request_id}`)).body;
    expect(req.routing_policy).toMatchObject({ escalation_after: 'PT30M', give_up_after: 'PT4H', max_open_asks_per_expert: 3 });
    const other = await t.call('POST', '/api/v1/requests', submitBody({ topic: 'kubernetes' }));
    expect((await t.call('GET', `/api/v1/requests/${other.body.request_id}`)).body.routing_policy.escalation_after).toBe('PT2H');
  });
});

describe('deduplication', () => {
  it('attaches a second consumer to an open request with the same dedup_key and asks nobody again', async () => {
    for (const id of ['billing-bot', 'ledger-bot']) {
      await t.service.registerConsumer({ id, handles_kinds: ['other'], delivery: { type: 'in_process' } });
    }
    const first = await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'inv-42' }));
    const second = await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'inv-42', consumer_id: 'ledger-bot' }));
    expect(second.body).toEqual({ request_id: first.body.request_id, status: 'deduped_open', request_status: 'asked' });
    const req = (await t.call('GET', `/api/v1/requests/${first.body.request_id}`)).body;
    expect(req.subscribers).toEqual(['billing-bot', 'ledger-bot']);
    expect(t.messages()).toHaveLength(1);
  });

  it('returns the accepted proposal at once for a resolved request, and asks again after a rejection', async () => {
    const first = await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'inv-7' }));
    const reply = await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'Thirty days.' });
    await t.call('POST', `/api/v1/proposals/${reply.body.proposal_id}/accept`, { decided_by: 'alice' });

    const resolved = await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'inv-7', consumer_id: 'ledger-bot' }));
    expect(resolved.body).toMatchObject({
      request_id: first.body.request_id,
      status: 'deduped_resolved',
      request_status: 'accepted',
      proposal: { id: reply.body.proposal_id, status: 'accepted', answer: 'Thirty days.' },
    });

    // The same question again, so reuse (offering the accepted answer) is turned off to reach an expert.
    const other = await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'inv-8', routing_policy: { reuse: 'off' } }));
    const r2 = await t.call('POST', '/api/v1/replies', { expert_id: 'lee', text: 'No idea, sorry' });
    expect(r2.body.request_id).toBe(other.body.request_id);
    await t.call('POST', `/api/v1/proposals/${r2.body.proposal_id}/reject`, { decided_by: 'alice', reason: 'not an answer' });
    const again = await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'inv-8' }));
    expect(again.body.status).toBe('queued');
    expect(again.body.request_id).not.toBe(other.body.request_id);
  });

  it('only dedups within the window (default P1D)', async () => {
    const first = await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'k' }));
    t.clock.advance(86_400_001);
    const later = await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'k' }));
    expect(later.body.status).toBe('queued');
    expect(later.body.request_id).not.toBe(first.body.request_id);
  });
});

describe('bad input', () => {
  it.each([
    ['missing asked_because', submitBody({ context: {} }), 'context.asked_because'],
    ['unknown field', submitBody({ topik: 'billing' }), '(root)'],
    ['empty topic', submitBody({ topic: '   ' }), 'topic'],
    ['question too long', submitBody({ question: 'x'.repeat(4001) }), 'question'],
    ['bad duration', submitBody({ routing_policy: { escalation_after: 'soon' } }), 'routing_policy.escalation_after'],
    ['unknown policy key', submitBody({ routing_policy: { max_open: 2 } }), 'routing_policy'],
    ['context too large', submitBody({ context: { asked_because: 'x', blob: 'y'.repeat(17_000) } }), 'context'],
    ['wrong type', submitBody({ target_experts: 'dana' }), 'target_experts'],
  ])('%s → 400 in the SPEC shape, nothing stored', async (_name, body, path) => {
    const res = await t.call('POST', '/api/v1/requests', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'bad_request', message: expect.any(String) });
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect((await t.call('GET', '/api/v1/requests')).body.items).toEqual([]);
    expect(t.messages()).toEqual([]);
  });

  it('rejects unknown target experts with 400 and stores nothing', async () => {
    const res = await t.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana', 'nobody'] }));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: 'target_experts', message: 'unknown expert id "nobody"' }]);
    expect((await t.call('GET', '/api/v1/requests')).body.items).toEqual([]);
  });

  it('answers malformed JSON and a missing body with 400 bad_request', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/requests', headers: { 'content-type': 'application/json' }, payload: '{"topic":' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('bad_request');
    const empty = await t.call('POST', '/api/v1/requests');
    expect(empty.status).toBe(400);
  });

  it('answers a body over the limit with 413 payload_too_large', async () => {
    const res = await t.call('POST', '/api/v1/requests', submitBody({ question: 'x'.repeat(1_100_000) }));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('404s unknown requests in the error shape', async () => {
    const res = await t.call('GET', '/api/v1/requests/req_nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'Request "req_nope" does not exist.' } });
    expect((await t.call('POST', '/api/v1/requests/req_nope/cancel')).status).toBe(404);
    expect((await t.call('GET', '/api/v1/audit?request_id=req_nope')).status).toBe(404);
  });
});

describe('listing and cancelling', () => {
  it('lists newest first with cursor pagination and filters', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.call('POST', '/api/v1/requests', submitBody({ consumer_id: i % 2 ? 'odd' : 'even' }))).body.request_id);
    const page1 = (await t.call('GET', '/api/v1/requests?limit=2')).body;
    expect(page1.items.map((r: { id: string }) => r.id)).toEqual([ids[4], ids[3]]);
    const page2 = (await t.call('GET', `/api/v1/requests?limit=2&cursor=${page1.next_cursor}`)).body;
    expect(page2.items.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    const page3 = (await t.call('GET', `/api/v1/requests?limit=2&cursor=${page2.next_cursor}`)).body;
    expect(page3).toEqual({ items: [expect.objectContaining({ id: ids[0] })], next_cursor: null });
    const odd = (await t.call('GET', '/api/v1/requests?consumer_id=odd')).body.items;
    expect(odd.map((r: { id: string }) => r.id)).toEqual([ids[3], ids[1]]);
    expect((await t.call('GET', '/api/v1/requests?limit=501')).status).toBe(400);
  });

  it('lists each request exactly as its own view shows it: asks, subscribers, latest proposal, why it waits', async () => {
    for (const id of ['billing-bot', 'ledger-bot']) await t.service.registerConsumer({ id, handles_kinds: ['other'], delivery: { type: 'in_process' } });
    const shared = (await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'inv-1' }))).body.request_id;
    await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'inv-1', consumer_id: 'ledger-bot' }));
    const answered = (await t.call('POST', '/api/v1/requests', submitBody({ target_experts: ['lee'], routing_policy: { reuse: 'off' } }))).body.request_id;
    const first = await t.call('POST', '/api/v1/replies', { expert_id: 'lee', text: 'Forty days.', request_id: answered });
    await t.call('POST', `/api/v1/proposals/${first.body.proposal_id}/return`, { decided_by: 'alice', instructions: 'Which invoices?' });
    await t.call('POST', '/api/v1/replies', { expert_id: 'lee', text: 'Disputed ones: thirty days.', request_id: answered });
    const cancelled = (await t.call('POST', '/api/v1/requests', submitBody({ topic: 'payments' }))).body.request_id;
    await t.call('POST', `/api/v1/requests/${cancelled}/cancel`, {});
    const listed = (await t.call('GET', '/api/v1/requests')).body.items;
    expect(listed.map((r: { id: string }) => r.id)).toEqual([cancelled, answered, shared]);
    for (const item of listed) expect(item).toEqual((await t.call('GET', `/api/v1/requests/${item.id}`)).body);
    expect(listed[2].subscribers).toEqual(['billing-bot', 'ledger-bot']);
    expect(listed[1]).toMatchObject({ status: 'proposed', waiting: { why: 'review' }, proposal: { answer: 'Disputed ones: thirty days.', status: 'pending' } });
    expect(listed[1].asks).toHaveLength(2);
  });

  it('cancels an open request: failed/cancelled, asks released, idempotent afterwards', async () => {
    const { request_id } = (await t.call('POST', '/api/v1/requests', submitBody())).body;
    const res = await t.call('POST', `/api/v1/requests/${request_id}/cancel`, {});
    expect(res.body).toMatchObject({ status: 'failed', reason: { code: 'cancelled' }, asks: [{ state: 'released' }] });
    const experts = (await t.call('GET', '/api/v1/experts')).body;
    expect(experts.find((e: { id: string }) => e.id === 'dana').open_asks).toBe(0);
    const again = await t.call('POST', `/api/v1/requests/${request_id}/cancel`, {});
    expect(again.body.status).toBe('failed');
    const audit = (await t.call('GET', `/api/v1/audit?request_id=${request_id}`)).body.map((e: { type: string }) => e.type);
    expect(audit).toEqual(['received', 'routed', 'asked', 'cancelled', 'failed']);
  });

  it('cancelling a proposed request withdraws its pending proposal from the queue', async () => {
    const { request_id } = (await t.call('POST', '/api/v1/requests', submitBody())).body;
    await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'Thirty days.' });
    expect((await t.call('GET', '/api/v1/proposals?status=pending')).body).toHaveLength(1);
    await t.call('POST', `/api/v1/requests/${request_id}/cancel`);
    expect((await t.call('GET', '/api/v1/proposals?status=pending')).body).toEqual([]);
  });
});
