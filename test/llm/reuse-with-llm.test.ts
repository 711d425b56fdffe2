import { beforeEach, describe, expect, it } from 'vitest';
import type { FakeLlm } from '../support/fake-llm.js';
import { useLlmKit } from '../support/llm-kit.js';
import type { SchedulerKit } from '../support/scheduler-kit.js';

const FIRST = 'How long is the refund window for annual plans?';
const REWORDED = 'What is the refund window for annual plans?';
const ANSWER = 'Thirty days from the invoice.';

const llm = useLlmKit();
let fake: FakeLlm;
let kit: SchedulerKit;
beforeEach(() => void (fake = llm.fake));

describe('reusing a library answer with an LLM configured', () => {
  it('offers the structured answer without drafting or asking; sent back, the question is drafted and an expert asked', async () => {
    kit = await llm.start();
    const first = await kit.submit({ question: FIRST });
    const [[expertId]] = (await kit.asks(first)) as [[string, string]];
    const reply = await kit.reply(expertId, ANSWER, first);
    expect((await kit.t.call('POST', `/api/v1/proposals/${reply.body.proposal_id}/accept`, { decided_by: 'rita' })).status).toBe(200);
    const drafts = fake.callsOf('drafted_question').length;
    const messages = kit.t.messages().length;

    const id = await kit.submit({ consumer_id: 'crm-bot', question: REWORDED });
    const request = await kit.request(id);
    expect(request).toMatchObject({ status: 'proposed', asked_question: REWORDED, waiting: { why: 'review' } });
    const proposal = (await kit.t.call('GET', `/api/v1/proposals/${request.proposal_id}`)).body;
    expect(proposal).toMatchObject({ structured: { summary: ANSWER, facts: [ANSWER] }, confidence: 0.8, provenance: { transport: 'library', ask_id: null } });
    expect(fake.callsOf('drafted_question')).toHaveLength(drafts);
    expect(kit.t.messages()).toHaveLength(messages);

    await kit.t.call('POST', `/api/v1/proposals/${proposal.id}/return`, { decided_by: 'rita' });
    const after = await kit.request(id);
    expect(after).toMatchObject({ status: 'asked', asked_question: `From memory: ${REWORDED}` });
    expect(fake.callsOf('drafted_question')).toHaveLength(drafts + 1);
    expect(kit.t.messages().at(-1)).toContain(`From memory: ${REWORDED}`);
  });
});
