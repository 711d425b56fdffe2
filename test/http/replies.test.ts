import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => t.close());

async function submit(overrides: Record<string, unknown> = {}): Promise<string> {
  return (await t.call('POST', '/api/v1/requests', submitBody(overrides))).body.request_id;
}
const reply = (expert_id: string, text: string, request_id?: string) =>
  t.call('POST', '/api/v1/replies', { expert_id, text, ...(request_id ? { request_id } : {}) });
const getRequest = async (id: string) => (await t.call('GET', `/api/v1/requests/${id}`)).body;
const auditTypes = async (id: string) =>
  (await t.call('GET', `/api/v1/audit?request_id=${id}`)).body.map((e: { type: string }) => e.type);
const expert = async (id: string) => (await t.call('GET', '/api/v1/experts')).body.find((e: { id: string }) => e.id === id);

describe('answers', () => {
  it('turns an answer into a pending proposal with verbatim answer, structured text and provenance', async () => {
    const id = await submit();
    const res = await reply('dana', '  Thirty days from the invoice date.  ');
    expect(res.body).toEqual({ request_id: id, ask_id: expect.stringMatching(/^ask_/), outcome: 'proposed', proposal_id: expect.stringMatching(/^prop_/) });

    const pending = (await t.call('GET', '/api/v1/proposals?status=pending')).body;
    expect(pending).toEqual([
      {
        id: res.body.proposal_id,
        request_id: id,
        status: 'pending',
        answer: '  Thirty days from the invoice date.  ',
        structured: { text: '  Thirty days from the invoice date.  ' },
        confidence: null,
        provenance: {
          expert_id: 'dana',
          expert_name: 'Dana Smith',
          source: 'Dana Smith',
          transport: 'console',
          answered_at: '2026-11-23T10:00:00.000Z',
          ask_id: res.body.ask_id,
          escalated: false,
        },
        decision: null,
        original_answer: null,
        created_at: '2026-11-23T10:00:00.000Z',
      },
    ]);
    expect(pending[0]).not.toHaveProperty('context');
    expect(await getRequest(id)).toMatchObject({ status: 'proposed', proposal_id: res.body.proposal_id, asks: [{ state: 'answered' }] });
    expect((await expert('dana')).open_asks).toBe(0);
    expect(await auditTypes(id)).toEqual(['received', 'routed', 'asked', 'replied', 'proposed']);
  });

  it('goes to the expert’s oldest open ask without request_id, or to the named request', async () => {
    const first = await submit();
    t.clock.advance(1000);
    const second = await submit({ target_experts: ['dana'] });
    expect((await reply('dana', 'answer for second', second)).body.request_id).toBe(second);
    expect((await reply('dana', 'answer for first')).body.request_id).toBe(first);
  });

  it('records a second answer on the same request as late_reply and creates nothing', async () => {
    const id = await submit({ target_experts: ['dana', 'lee'] });
    expect((await reply('dana', 'Thirty days.')).body.outcome).toBe('proposed');
    expect((await expert('lee')).open_asks).toBe(0);
    const late = await reply('lee', 'Thirty, I think.', id);
    expect(late.body.outcome).toBe('late_reply');
    expect((await t.call('GET', '/api/v1/proposals')).body).toHaveLength(1);
    expect(await auditTypes(id)).toContain('late_reply');
  });

  it('404s an unknown expert, or an expert with no ask on that request', async () => {
    expect((await reply('nobody', 'hi')).body.error.code).toBe('not_found');
    const id = await submit();
    expect((await reply('sam', 'hi', id)).status).toBe(404);
    expect((await reply('sam', 'hi')).status).toBe(404);
  });
});

describe('opt-outs', () => {
  it('skip reroutes to escalation_to without changing standing availability', async () => {
    const id = await submit();
    const res = await reply('dana', 'Skip');
    expect(res.body.outcome).toBe('skipped');
    const req = await getRequest(id);
    expect(req.status).toBe('escalated');
    expect(req.asks.map((a: { expert_id: string; state: string }) => [a.expert_id, a.state])).toEqual([
      ['dana', 'skipped'],
      ['lee', 'open'],
    ]);
    expect(await expert('dana')).toMatchObject({ muted: false, open_asks: 0 });
    expect(t.messages()).toHaveLength(2);
    expect(t.messages()[1]).toContain('Hi Lee,');
    expect(t.messages()[1]).toContain('Reply `mute` to stop receiving questions');
    const answer = await reply('lee', 'Thirty days.');
    expect((await t.call('GET', `/api/v1/proposals/${answer.body.proposal_id}`)).body.provenance).toMatchObject({ expert_id: 'lee', escalated: true });
  });

  it('skip with nobody to escalate to fails the request with expert_declined', async () => {
    const id = await submit({ topic: 'kubernetes' });
    await reply('sam', 'skip');
    expect(await getRequest(id)).toMatchObject({ status: 'failed', reason: { code: 'expert_declined' } });
  });

  it('mute marks the expert muted, passes the ask on, and routing skips them until unmute', async () => {
    const id = await submit();
    expect((await reply('dana', 'MUTE')).body.outcome).toBe('muted');
    expect(await expert('dana')).toMatchObject({ muted: true, open_asks: 0 });
    expect((await getRequest(id)).asks.map((a: { expert_id: string }) => a.expert_id)).toEqual(['dana', 'lee']);

    const next = await submit({ topic: 'invoices' }); // only Dana has "invoices"
    expect(await getRequest(next)).toMatchObject({ status: 'failed', reason: { code: 'no_expert_found' } });

    expect((await reply('dana', 'unmute')).body.outcome).toBe('unmuted');
    expect((await expert('dana')).muted).toBe(false);
    const third = await submit({ topic: 'invoices' });
    expect((await getRequest(third)).asks[0].expert_id).toBe('dana');
  });

  it('POST /experts/{id}/unmute clears the mute; unknown expert 404', async () => {
    await submit();
    await reply('dana', 'mute');
    const res = await t.call('POST', '/api/v1/experts/dana/unmute');
    expect(res.body).toMatchObject({ id: 'dana', muted: false });
    expect((await t.call('POST', '/api/v1/experts/ghost/unmute')).status).toBe(404);
  });

  it('ignores mute and skip after the proposal was decided', async () => {
    const id = await submit();
    const answer = await reply('dana', 'Thirty days.');
    await t.call('POST', `/api/v1/proposals/${answer.body.proposal_id}/accept`, { decided_by: 'alice' });
    expect((await reply('dana', 'skip', id)).body.outcome).toBe('ignored');
    expect((await reply('dana', 'mute', id)).body.outcome).toBe('ignored');
    expect(await expert('dana')).toMatchObject({ muted: false });
    expect(await getRequest(id)).toMatchObject({ status: 'accepted' });
    expect((await auditTypes(id)).filter((x: string) => x === 'ignored_reply')).toHaveLength(2);
  });
});

describe('decisions', () => {
  async function proposed(): Promise<{ requestId: string; proposalId: string }> {
    const requestId = await submit();
    const res = await reply('dana', 'Thirty days.');
    return { requestId, proposalId: res.body.proposal_id };
  }

  it('accept: proposal and request accepted, decision recorded, expert told the answer was accepted', async () => {
    const { requestId, proposalId } = await proposed();
    const res = await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'alice', note: 'checked the policy' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'accepted',
      decision: { decided_by: 'alice', note: 'checked the policy', reason: null, decided_at: '2026-11-23T10:00:00.000Z' },
    });
    expect((await getRequest(requestId)).status).toBe('accepted');
    expect((await t.call('GET', '/api/v1/proposals?status=pending')).body).toEqual([]);
    const notice = t.messages().at(-1)!;
    expect(notice).toContain('message to Dana Smith (dana)');
    expect(notice).toContain('was accepted after human review and is recorded with your name (Dana Smith)');
    expect(await auditTypes(requestId)).toEqual(['received', 'routed', 'asked', 'replied', 'proposed', 'decided']);
  });

  it('reject needs a reason and records it; the request becomes rejected', async () => {
    const { requestId, proposalId } = await proposed();
    const missing = await t.call('POST', `/api/v1/proposals/${proposalId}/reject`, { decided_by: 'alice' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([{ path: 'reason', message: expect.any(String) }]);
    expect((await t.call('GET', `/api/v1/proposals/${proposalId}`)).body.status).toBe('pending');

    const res = await t.call('POST', `/api/v1/proposals/${proposalId}/reject`, { decided_by: 'alice', reason: 'outdated policy' });
    expect(res.body).toMatchObject({ status: 'rejected', decision: { decided_by: 'alice', reason: 'outdated policy' } });
    expect((await getRequest(requestId)).status).toBe('rejected');
  });

  it('a decided proposal is a no-op for later accept or reject', async () => {
    const { proposalId } = await proposed();
    await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'alice' });
    const again = await t.call('POST', `/api/v1/proposals/${proposalId}/reject`, { decided_by: 'bob', reason: 'late' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'accepted', decision: { decided_by: 'alice' } });
    expect(t.messages().filter((m) => m.includes('was accepted'))).toHaveLength(1);
  });

  it('concurrent accept and reject of one proposal: exactly one wins, events and notices written once', async () => {
    const { requestId, proposalId } = await proposed();
    const calls = Array.from({ length: 10 }, (_, i) =>
      i % 2
        ? t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: `a${i}` })
        : t.call('POST', `/api/v1/proposals/${proposalId}/reject`, { decided_by: `r${i}`, reason: 'no' }),
    );
    const results = await Promise.all(calls);
    const statuses = new Set(results.map((r) => r.body.status));
    expect(statuses.size).toBe(1);
    const deciders = new Set(results.map((r) => r.body.decision.decided_by));
    expect(deciders.size).toBe(1);
    expect((await auditTypes(requestId)).filter((x: string) => x === 'decided')).toHaveLength(1);
    const events = (await t.store.outbox.events(requestId)).filter((e) => e.type !== 'proposal');
    expect(events).toHaveLength(1);
  });

  it('unknown proposal → 404; bad body → 400', async () => {
    expect((await t.call('POST', '/api/v1/proposals/prop_x/accept', { decided_by: 'a' })).status).toBe(404);
    expect((await t.call('POST', '/api/v1/proposals/prop_x/reject', { decided_by: 'a', reason: 'r' })).status).toBe(404);
    const { proposalId } = await proposed();
    const bad = await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: '' });
    expect(bad.status).toBe(400);
    expect((await t.call('GET', '/api/v1/proposals?status=accepted')).status).toBe(400);
  });
});
