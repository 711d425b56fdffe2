import { describe, expect, it } from 'vitest';
import { useLlmKit } from '../support/llm-kit.js';

const llm = useLlmKit();

describe('LLM error counter', () => {
  it('counts failed calls and unusable output by stage in /metrics', async () => {
    const kit = await llm.start();
    // Before any failure every stage and reason is there at 0, so a rate can be taken from the start.
    const before = (await kit.t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(before).toMatch(/^expertq_llm_errors_total\{stage="structure",reason="unusable_output"\} 0$/m);
    expect(before).toMatch(/^expertq_llm_errors_total\{stage="draft",reason="call_failed"\} 0$/m);
    llm.fake.on('drafted_question', { status: 500 });
    await kit.submit();
    llm.fake.on('drafted_question', { content: 'Sure! Here is a question.' });
    await kit.submit();
    await kit.submit();
    const res = await kit.t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.body).toMatch(/^expertq_llm_errors_total\{stage="draft",reason="call_failed"\} 1$/m);
    expect(res.body).toMatch(/^expertq_llm_errors_total\{stage="draft",reason="unusable_output"\} 2$/m);
  });
});
