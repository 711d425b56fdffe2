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

  it('a stale match: the drafted ask shows the previous answer, and `same` proposes its structured form without structuring again', async () => {
    kit = await llm.start();
    const first = await kit.submit({ question: FIRST });
    const [[expertId]] = (await kit.asks(first)) as [[string, string]];
    const reply = await kit.reply(expertId, ANSWER, first);
    await kit.t.call('POST', `/api/v1/proposals/${reply.body.proposal_id}/accept`, { decided_by: 'rita' });
    kit.t.clock.advance(91 * 86_400_000);

    const id = await kit.submit({ consumer_id: 'crm-bot', question: REWORDED });
    expect(await kit.request(id)).toMatchObject({ status: 'asked', asked_question: `From memory: ${REWORDED}` });
    const ask = kit.t.messages().at(-1)!;
    expect(ask).toContain(`From memory: ${REWORDED}`);
    expect(ask).toContain(`Dana Smith answered: “${ANSWER}”. If it still holds, reply \`same\`.`);
    const structurings = fake.callsOf('structured_answer').length;
    const same = await kit.reply(expertId, 'same', id);
    const proposal = (await kit.t.call('GET', `/api/v1/proposals/${same.body.proposal_id}`)).body;
    expect(proposal).toMatchObject({ answer: ANSWER, structured: { summary: ANSWER, facts: [ANSWER] }, provenance: { refreshes: expect.stringMatching(/^ans_/) } });
    expect(fake.callsOf('structured_answer')).toHaveLength(structurings);
  });
});
