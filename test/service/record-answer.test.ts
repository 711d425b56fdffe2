import { afterEach, describe, expect, it } from 'vitest';
import { decideProposal } from '../../src/service/review/decide-proposal.js';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

async function proposed(answer: string): Promise<{ requestId: string; proposalId: string }> {
  const requestId = (await t.call('POST', '/api/v1/requests', submitBody({ topic: ' Billing ', question: 'What is the grace period for disputed invoices?' }))).body.request_id as string;
  const [ask] = await t.service.store.asks.listFor(requestId);
  const reply = await t.call('POST', '/api/v1/replies', { expert_id: ask!.expert_id, text: answer, request_id: requestId });
  expect(reply.body).toMatchObject({ proposal_id: expect.stringMatching(/^prop_/) });
  return { requestId, proposalId: reply.body.proposal_id };
}

const entries = async () => (await t.service.store.answers.search({ staleBefore: 0, limit: 50 })).items;

describe('the answer library at acceptance', () => {
  it('accepting a proposal adds its answer as delivered (the reviewer’s edit), with who answered and who accepted', async () => {
    t = await buildTestApp();
    const { requestId, proposalId } = await proposed('thirty days i think');
    const res = await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'rita', answer: 'Thirty days from the invoice date.' });
    expect(res.status).toBe(200);

    const [entry, ...others] = await entries();
    expect(others).toEqual([]);
    expect(entry).toMatchObject({
      topic: 'billing',
      kind: 'answer',
      question: 'What is the grace period for disputed invoices?',
      answer: 'Thirty days from the invoice date.',
      structured: { text: 'Thirty days from the invoice date.' },
      expert_id: 'dana',
      expert_name: 'Dana Smith',
      consumer_id: 'billing-bot',
      request_id: requestId,
      proposal_id: proposalId,
      accepted_at: t.clock.now(),
      accepted_by: 'rita',
      verified_at: t.clock.now(),
      status: 'active',
      reuse_count: 0,
      retired: null,
    });
    expect(entry!.id).toMatch(/^ans_/);
  });

  it('a rejected proposal, and an accept that is rolled back, add nothing', async () => {
    t = await buildTestApp();
    const first = await proposed('Thirty days.');
    await t.call('POST', `/api/v1/proposals/${first.proposalId}/reject`, { decided_by: 'rita', reason: 'wrong' });
    const second = await proposed('Forty days.');
    await expect(
      t.service.store.transaction(async (tx) => {
        await decideProposal(t.service, tx, second.proposalId, 'accepted', { decided_by: 'rita' });
        throw new Error('the commit fails');
      }),
    ).rejects.toThrow('the commit fails');
    expect(await entries()).toEqual([]);
    expect((await t.call('GET', `/api/v1/proposals/${second.proposalId}`)).body.status).toBe('pending');
  });
});
