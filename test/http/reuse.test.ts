import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { answeredInto } from '../support/library.js';

const DAY = 86_400_000;
const FIRST = 'How long is the refund window for annual plans?';
const REWORDED = 'What is the refund window for annual plans?';

let t: TestApp;
afterEach(async () => t?.close());

/** billing-bot asks `question`, the asked expert answers, a reviewer accepts: one library entry. */
const answered = (question = FIRST, answer = 'Thirty days from the invoice.') => answeredInto(t, question, answer);

/** crm-bot submits `question`; returns the request as read back. */
async function submitOther(question = REWORDED, over: Record<string, unknown> = {}) {
  const submitted = await t.call('POST', '/api/v1/requests', submitBody({ consumer_id: 'crm-bot', question, ...over }));
  expect(submitted).toMatchObject({ status: 200, body: { status: 'queued' } });
  return (await t.call('GET', `/api/v1/requests/${submitted.body.request_id}`)).body;
}

const auditOf = async (requestId: string) => (await t.call('GET', `/api/v1/audit?request_id=${requestId}`)).body as Array<{ type: string; data: Record<string, unknown> }>;

describe('reusing an accepted answer at submit', () => {
  it("offers another consumer's reworded question the accepted answer as a pending proposal, and asks nobody", async () => {
    t = await buildTestApp({ token: 'admin-token' });
    const first = await answered();
    const messagesBefore = t.messages().length;

    const request = await submitOther();
    expect(request).toMatchObject({ status: 'proposed', asks: [] });
    expect(request.proposal).toMatchObject({
      status: 'pending',
      answer: 'Thirty days from the invoice.',
      structured: { text: 'Thirty days from the invoice.' },
      confidence: 0.8,
      provenance: {
        expert_id: 'dana', expert_name: 'Dana Smith', source: 'Dana Smith', transport: 'library', ask_id: null, escalated: false,
        reused_from: first.answerId, original_request_id: first.requestId, verified_at: expect.any(String), answered_at: expect.any(String),
      },
    });
    expect(t.messages()).toHaveLength(messagesBefore);
    expect(await t.store.outbox.messages(request.id)).toEqual([]);
    expect((await auditOf(request.id)).map((a) => a.type)).toEqual(['received', 'reused', 'proposed']);
    expect((await auditOf(request.id))[1]!.data).toEqual({ answer_id: first.answerId, score: 0.8, by: 'lexical' });
    const queue = (await t.call('GET', '/api/v1/proposals?status=pending')).body;
    expect(queue.map((p: { id: string }) => p.id)).toEqual([request.proposal.id]);
  });

  it('accepting delivers it with its provenance, counts the reuse on the entry, adds no second entry and messages nobody', async () => {
    t = await buildTestApp({ token: 'admin-token' });
    const first = await answered();
    const request = await submitOther();
    const messagesBefore = t.messages().length;

    const accepted = await t.call('POST', `/api/v1/proposals/${request.proposal.id}/accept`, { decided_by: 'rita' });
    expect(accepted.body).toMatchObject({ status: 'accepted', provenance: { transport: 'library', reused_from: first.answerId } });
    const events = await t.store.outbox.events(request.id);
    expect(events.map((e) => e.type)).toEqual(['proposal', 'proposal_accepted']);
    expect(events[1]!.body.proposal).toMatchObject({ answer: 'Thirty days from the invoice.', provenance: { reused_from: first.answerId, ask_id: null } });
    expect(t.messages()).toHaveLength(messagesBefore);

    const entries = (await t.call('GET', '/api/v1/answers')).body.items;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ id: first.answerId, reuse_count: 1 });
    expect((await t.call('GET', `/api/v1/requests/${request.id}`)).body.status).toBe('accepted');
  });

  it('sending it back asks an expert as if nothing matched, without instructions; the expert’s answer then makes its own entry', async () => {
    t = await buildTestApp({ token: 'admin-token' });
    const first = await answered();
    const request = await submitOther();

    const returned = await t.call('POST', `/api/v1/proposals/${request.proposal.id}/return`, { decided_by: 'rita' });
    expect(returned).toMatchObject({ status: 200, body: { status: 'rejected', decision: { reason: 'returned', note: null } } });
    const after = (await t.call('GET', `/api/v1/requests/${request.id}`)).body;
    expect(after.status).toBe('asked');
    expect(after.asks).toEqual([expect.objectContaining({ state: 'open' })]);
    const expert = after.asks[0].expert_id as string;
    expect(t.messages().at(-1)).toContain(REWORDED);
    const declined = (await auditOf(request.id)).find((a) => a.type === 'reuse_declined');
    expect(declined?.data).toMatchObject({ answer_id: first.answerId, proposal_id: request.proposal.id });

    const reply = await t.call('POST', '/api/v1/replies', { expert_id: expert, text: 'Annual plans: sixty days.', request_id: request.id });
    await t.call('POST', `/api/v1/proposals/${reply.body.proposal_id}/accept`, { decided_by: 'rita' });
    const entries = (await t.call('GET', '/api/v1/answers')).body.items;
    expect(entries.map((e: { answer: string; reuse_count: number }) => [e.answer, e.reuse_count])).toEqual([
      ['Annual plans: sixty days.', 0],
      ['Thirty days from the invoice.', 0],
    ]);
  });

  it('still requires instructions to send an expert’s own answer back', async () => {
    t = await buildTestApp({ token: 'admin-token' });
    const requestId = (await t.call('POST', '/api/v1/requests', submitBody())).body.request_id;
    const reply = await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'Ten days.', request_id: requestId });
    const returned = await t.call('POST', `/api/v1/proposals/${reply.body.proposal_id}/return`, { decided_by: 'rita' });
    expect(returned).toMatchObject({ status: 400, body: { error: { details: [{ path: 'instructions' }] } } });
    expect((await t.call('GET', `/api/v1/proposals/${reply.body.proposal_id}`)).body.status).toBe('pending');
  });

  it('rejecting it rejects the request as for any proposal', async () => {
    t = await buildTestApp({ token: 'admin-token' });
    await answered();
    const request = await submitOther();
    await t.call('POST', `/api/v1/proposals/${request.proposal.id}/reject`, { decided_by: 'rita', reason: 'not for this customer' });
    expect((await t.call('GET', `/api/v1/requests/${request.id}`)).body.status).toBe('rejected');
    expect((await t.store.outbox.events(request.id)).map((e) => e.type)).toEqual(['proposal', 'proposal_rejected']);
  });

  it('asks an expert for a different question on the same topic, or of another kind', async () => {
    t = await buildTestApp({ token: 'admin-token' });
    await answered();
    expect(await submitOther('How long is the trial for annual plans?')).toMatchObject({ status: 'asked', asks: [expect.anything()] });
    expect(await submitOther(REWORDED, { kind: 'policy' })).toMatchObject({ status: 'asked' });
    expect(await submitOther(REWORDED, { topic: 'payments' })).toMatchObject({ status: 'asked' });
  });

  it('library.reuse: off asks an expert; a request’s routing_policy.reuse overrides the setting either way', async () => {
    t = await buildTestApp({ token: 'admin-token', config: { library: { reuse: 'off' } } });
    await answered();
    expect(await submitOther()).toMatchObject({ status: 'asked' });
    expect(await submitOther(REWORDED, { routing_policy: { reuse: 'offer' } })).toMatchObject({ status: 'proposed' });
    await t.close();

    t = await buildTestApp({ token: 'admin-token' });
    await answered();
    const off = await submitOther(REWORDED, { routing_policy: { reuse: 'off', escalation_after: '2h' } });
    expect(off).toMatchObject({ status: 'asked', routing_policy: { escalation_after: 'PT2H' } });
    expect(off.routing_policy).not.toHaveProperty('reuse');
    expect((await t.call('POST', '/api/v1/requests', submitBody({ routing_policy: { reuse: 'sometimes' } }))).status).toBe(400);
  });

  it('never offers a retired or stale entry; offers a curated one', async () => {
    t = await buildTestApp({ token: 'admin-token' });
    const { answerId } = await answered();
    await t.call('POST', `/api/v1/answers/${answerId}/retire`, { decided_by: 'rita', reason: 'prices changed' });
    expect(await submitOther()).toMatchObject({ status: 'asked' });

    const curated = { topic: 'Billing', question: 'Can a refund be split across invoices?', answer: 'One refund per invoice.', expert_id: 'lee' };
    expect((await t.call('POST', '/api/v1/answers', curated)).status).toBe(201);
    const split = await submitOther('Can a refund be split across several invoices?');
    expect(split).toMatchObject({ status: 'proposed', proposal: { answer: 'One refund per invoice.', provenance: { expert_name: 'Lee Chen', original_request_id: null } } });

    t.clock.advance(91 * DAY);
    expect(await submitOther('Can a refund be split across several invoices?')).toMatchObject({ status: 'asked' });
  });

  it('with library.share: same_consumer, offers a consumer only its own entries and curated ones', async () => {
    t = await buildTestApp({ token: 'admin-token', config: { library: { share: 'same_consumer' } } });
    await answered();
    expect(await submitOther()).toMatchObject({ status: 'asked' });
    const own = await t.call('POST', '/api/v1/requests', submitBody({ question: REWORDED }));
    expect((await t.call('GET', `/api/v1/requests/${own.body.request_id}`)).body.status).toBe('proposed');
  });
});
