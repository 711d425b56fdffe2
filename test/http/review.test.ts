import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

let t: TestApp;
let receiver: WebhookReceiver | null = null;
afterEach(async () => {
  await t?.close();
  await receiver?.stop();
  receiver = null;
});

async function withConsumer(extra: Record<string, unknown> = {}): Promise<WebhookReceiver> {
  t = await buildTestApp({ config: { server: { allow_private_webhooks: true } } });
  receiver = new WebhookReceiver();
  const url = await receiver.start();
  const res = await t.call('POST', '/api/v1/consumers', { id: 'billing-bot', handles_kinds: ['answer'], delivery: { type: 'webhook', url }, ...extra });
  expect(res.status).toBe(201);
  return receiver;
}

async function proposed(answer = 'Thirty days.'): Promise<{ requestId: string; proposalId: string }> {
  const requestId = (await t.call('POST', '/api/v1/requests', submitBody())).body.request_id as string;
  const reply = await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: answer, request_id: requestId });
  return { requestId, proposalId: reply.body.proposal_id };
}

const auditOf = async (id: string) => (await t.call('GET', `/api/v1/audit?request_id=${id}`)).body as Array<{ type: string; actor: string; data: Record<string, unknown> }>;

describe('edit before accepting', () => {
  it('delivers the edited answer and keeps the expert’s text, who edited it, and both texts in the audit', async () => {
    const r = await withConsumer();
    const { requestId, proposalId } = await proposed('thirty days i think');
    const res = await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'rev', answer: 'Thirty days from the invoice date.' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'accepted',
      answer: 'Thirty days from the invoice date.',
      original_answer: 'thirty days i think',
      structured: { text: 'Thirty days from the invoice date.' },
      provenance: { edited_by: 'rev', expert_id: 'dana' },
    });
    await r.waitFor(1);
    const event = r.received.find((e) => e.json.event === 'proposal_accepted')!.json as { proposal: Record<string, unknown> };
    expect(event.proposal).toMatchObject({ answer: 'Thirty days from the invoice date.', original_answer: 'thirty days i think' });
    const decided = (await auditOf(requestId)).find((e) => e.type === 'decided')!;
    expect(decided.data).toMatchObject({ edited: true, original_answer: 'thirty days i think', answer: 'Thirty days from the invoice date.' });
    expect(t.messages().at(-1)).toMatch(/a reviewer edited the wording before accepting it/);
  });

  it('an unchanged answer is not an edit', async () => {
    await withConsumer();
    const { proposalId } = await proposed('Thirty days.');
    const res = await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'rev', answer: ' Thirty days. ' });
    expect(res.body).toMatchObject({ answer: 'Thirty days.', original_answer: null });
    expect(res.body.provenance).not.toHaveProperty('edited_by');
  });

  it('validates an edited structured form against the kind schema a consumer registered', async () => {
    const schema = { type: 'object', properties: { days: { type: 'integer' } }, required: ['days'], additionalProperties: false };
    await withConsumer({ kind_schemas: { answer: schema } });
    const { proposalId } = await proposed();
    const bad = await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'rev', structured: { days: 'thirty' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ path: 'structured.days' })]);
    expect((await t.call('GET', `/api/v1/proposals/${proposalId}`)).body.status).toBe('pending');
    const good = await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'rev', structured: { days: 30 } });
    expect(good.body).toMatchObject({ status: 'accepted', structured: { days: 30 }, answer: 'Thirty days.', original_answer: 'Thirty days.' });
  });

  it('refuses a structured form when no schema is registered for the kind', async () => {
    await withConsumer();
    const { proposalId } = await proposed();
    const res = await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'rev', structured: { days: 30 } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/No consumer registered a schema for kind "answer"/);
  });
});

describe('send back to the expert', () => {
  it('asks the same expert again with the instructions, tells no consumer, and the next answer is a new proposal', async () => {
    const r = await withConsumer();
    const { requestId, proposalId } = await proposed('30');
    const res = await t.call('POST', `/api/v1/proposals/${proposalId}/return`, { decided_by: 'rev', instructions: 'Please say from which date the 30 days count.' });
    expect(res.body).toMatchObject({ status: 'rejected', decision: { decided_by: 'rev', reason: 'returned', note: 'Please say from which date the 30 days count.' } });
    const request = (await t.call('GET', `/api/v1/requests/${requestId}`)).body;
    expect(request.status).toBe('asked');
    expect(request.asks.map((a: { expert_id: string; state: string }) => [a.expert_id, a.state])).toEqual([['dana', 'answered'], ['dana', 'open']]);

    // The new ask: the six elements in order, with the reviewer's words right after the question.
    const lines = t.messages().at(-1)!.split('\n').slice(1).map((l) => l.trim());
    expect(lines[0]).toMatch(/automated assistant/);
    expect(lines[1]).toMatch(/billing-bot service is asking because/);
    expect(lines[2]).toMatch(/^Question: /);
    expect(lines[3]).toBe('A reviewer sent your answer back ("30") and asks: Please say from which date the 30 days count.');
    expect(lines[4]).toMatch(/one- or two-sentence/);
    expect(lines[5]).toMatch(/after human review/);
    expect(lines[6]).toMatch(/`mute`.*`skip`/);

    const second = await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'Thirty days from the invoice date.', request_id: requestId });
    expect(second.body.outcome).toBe('proposed');
    const queue = (await t.call('GET', '/api/v1/queue')).body;
    expect(queue).toHaveLength(1);
    expect(queue[0].proposal.answer).toBe('Thirty days from the invoice date.');
    expect(queue[0].history).toEqual([
      expect.objectContaining({ proposal_id: proposalId, answer: '30', instructions: 'Please say from which date the 30 days count.', returned_by: 'rev' }),
    ]);
    await t.call('POST', `/api/v1/proposals/${second.body.proposal_id}/accept`, { decided_by: 'rev' });
    await r.waitFor(1);
    expect(r.received.map((e) => e.json.event)).toEqual(['proposal_accepted']);
    expect((await auditOf(requestId)).map((e) => e.type)).toContain('returned');
  });

  it('keeps the give-up clock running from submission', async () => {
    await withConsumer();
    const { requestId, proposalId } = await proposed();
    t.clock.advance(20 * 3_600_000);
    await t.call('POST', `/api/v1/proposals/${proposalId}/return`, { decided_by: 'rev', instructions: 'More detail, please.' });
    t.clock.advance(4 * 3_600_000 + 1_000);
    await t.service.tick();
    await t.service.idle();
    expect((await t.call('GET', `/api/v1/requests/${requestId}`)).body.reason.code).toBe('timeout');
  });
});

describe('no self-approval', () => {
  it('refuses a decision by the expert who answered (409), on accept, reject and return', async () => {
    await withConsumer();
    const { proposalId } = await proposed();
    for (const [path, body] of [
      ['accept', { decided_by: 'dana' }],
      ['reject', { decided_by: 'dana', reason: 'no' }],
      ['return', { decided_by: 'dana', instructions: 'x' }],
    ] as const) {
      const res = await t.call('POST', `/api/v1/proposals/${proposalId}/${path}`, body);
      expect(res.status, path).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/Dana Smith answered this proposal and cannot decide it/) });
    }
    expect((await t.call('GET', `/api/v1/proposals/${proposalId}`)).body.status).toBe('pending');
  });

  it('compares people, not strings: another case, the full name or surrounding spaces are the same expert', async () => {
    await withConsumer();
    const { proposalId } = await proposed();
    for (const decidedBy of ['DANA', 'Dana Smith', '  dana smith ', 'Dana Smith (slack:U0DANA)', 'somebody (slack:dana)']) {
      const res = await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: decidedBy });
      expect(res.status, decidedBy).toBe(409);
    }
    expect((await t.call('GET', `/api/v1/proposals/${proposalId}`)).body.status).toBe('pending');
    // A colleague whose name merely contains the expert's is someone else.
    expect((await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'Dana Smithson' })).body.status).toBe('accepted');
  });
});
