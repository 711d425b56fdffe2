import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { answeredInto } from '../support/library.js';

const DAY = 86_400_000;
const FIRST = 'How long is the refund window for annual plans?';
const REWORDED = 'What is the refund window for annual plans?';
const ANSWER = 'Thirty days from the invoice.';

let t: TestApp;
afterEach(async () => t?.close());

/** billing-bot asks `question`, the asked expert answers, a reviewer accepts: one library entry. */
const answered = (question = FIRST, answer = ANSWER) => answeredInto(t, question, answer);

/** crm-bot submits `question`; returns the request as read back. */
async function submitOther(question = REWORDED) {
  const submitted = await t.call('POST', '/api/v1/requests', submitBody({ consumer_id: 'crm-bot', question }));
  expect(submitted).toMatchObject({ status: 200, body: { status: 'queued' } });
  return (await t.call('GET', `/api/v1/requests/${submitted.body.request_id}`)).body;
}

const entries = async () => (await t.call('GET', '/api/v1/answers')).body.items as Array<Record<string, unknown>>;

describe('a stale library entry that would have matched', () => {
  it('asks an expert, showing the previous answer right after the question and offering `same`', async () => {
    t = await buildTestApp({ token: 'admin-token' });
    await answered();
    t.clock.advance(91 * DAY);

    const request = await submitOther();
    expect(request).toMatchObject({ status: 'asked', asks: [expect.objectContaining({ expert_id: 'dana', state: 'open' })] });
    const lines = t.messages().at(-1)!.split('\n').map((l) => l.trim());
    const question = lines.findIndex((l) => l.includes(`Question: ${REWORDED}`));
    expect(question).toBeGreaterThan(0);
    expect(lines[question + 1]).toBe(`Last time (Nov 23, 2026) Dana Smith answered: “${ANSWER}”. If it still holds, reply \`same\`.`);
    expect(lines[question + 2]).toContain('one- or two-sentence reply');
  });

  it('a reply `same` proposes the previous answer; accepting it refreshes that entry instead of adding one, and it is offered again', async () => {
    t = await buildTestApp({ token: 'admin-token' });
    const first = await answered();
    t.clock.advance(91 * DAY);
    const request = await submitOther();

    const reply = await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: '  Same. ', request_id: request.id });
    expect(reply.body).toMatchObject({ outcome: 'proposed' });
    const proposal = (await t.call('GET', `/api/v1/proposals/${reply.body.proposal_id}`)).body;
    expect(proposal).toMatchObject({
      answer: ANSWER,
      structured: { text: ANSWER },
      provenance: { expert_id: 'dana', refreshes: first.answerId, ask_id: expect.any(String) },
    });

    const accepted = await t.call('POST', `/api/v1/proposals/${proposal.id}/accept`, { decided_by: 'rita' });
    expect(accepted.body).toMatchObject({ status: 'accepted', answer: ANSWER });
    const after = await entries();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: first.answerId, status: 'active', answer: ANSWER, verified_at: new Date(t.clock.now()).toISOString() });

    const next = await submitOther('What is the refund window on annual plans?');
    expect(next).toMatchObject({ status: 'proposed', proposal: { answer: ANSWER, provenance: { reused_from: first.answerId } } });
  });

  it('a reviewer’s edit of a `same` proposal becomes the entry’s answer', async () => {
    t = await buildTestApp({ token: 'admin-token' });
    const first = await answered();
    t.clock.advance(91 * DAY);
    const request = await submitOther();
    const reply = await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'SAME', request_id: request.id });
    await t.call('POST', `/api/v1/proposals/${reply.body.proposal_id}/accept`, { decided_by: 'rita', answer: 'Thirty days from the invoice date.' });
    expect(await entries()).toEqual([expect.objectContaining({ id: first.answerId, answer: 'Thirty days from the invoice date.' })]);
  });

  it('any other reply is a new answer with an entry of its own', async () => {
    t = await buildTestApp({ token: 'admin-token' });
    await answered();
    t.clock.advance(91 * DAY);
    const request = await submitOther();
    const reply = await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'Sixty days now.', request_id: request.id });
    const proposal = (await t.call('GET', `/api/v1/proposals/${reply.body.proposal_id}`)).body;
    expect(proposal.provenance).not.toHaveProperty('refreshes');
    await t.call('POST', `/api/v1/proposals/${proposal.id}/accept`, { decided_by: 'rita' });
    expect((await entries()).map((e) => e.answer)).toEqual(['Sixty days now.', ANSWER]);
  });
});

describe('`same` to an ordinary ask', () => {
  it('is an answer like any other text, and the ask shows no previous answer', async () => {
    t = await buildTestApp({ token: 'admin-token' });
    const requestId = (await t.call('POST', '/api/v1/requests', submitBody({ question: FIRST }))).body.request_id as string;
    expect(t.messages().at(-1)).not.toContain('Last time');
    const reply = await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'same', request_id: requestId });
    const proposal = (await t.call('GET', `/api/v1/proposals/${reply.body.proposal_id}`)).body;
    expect(proposal.answer).toBe('same');
    expect(proposal.provenance).not.toHaveProperty('refreshes');
  });
});
