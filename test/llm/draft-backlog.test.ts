import { describe, expect, it } from 'vitest';
import { submitBody } from '../support/build-test-app.js';
import { later } from '../support/fake-llm.js';
import { useLlmKit } from '../support/llm-kit.js';

const llm = useLlmKit();

describe('a model too far behind to draft in time', () => {
  it('asks a new request with the raw question at once instead of letting it wait llm.timeout for nothing', async () => {
    const kit = await llm.start({ timeout: '30s', concurrency: 1 });
    const { t } = kit;
    // Nothing is known of the model before its first call: the first request waits for its draft.
    const slow = later();
    llm.fake.on('drafted_question', slow.behaviour);
    const first = (await t.callNow('POST', '/api/v1/requests', submitBody({ question: 'Grace period?', target_experts: ['lee'] }))).body.request_id;
    await llm.fake.waitForCalls('drafted_question');
    // The call takes 20 s: one draft fits in llm.timeout (30 s), two in a row do not.
    t.clock.advance(20_000);
    slow.release({ json: { question: 'From memory: grace period?' } });
    await t.service.idle();
    expect(await kit.request(first)).toMatchObject({ status: 'asked', asked_question: 'From memory: grace period?' });
    await t.service.tick();

    const hang = later();
    llm.fake.on('drafted_question', hang.behaviour);
    const second = (await t.callNow('POST', '/api/v1/requests', submitBody({ question: 'Refund limit?', target_experts: ['lee'] }))).body.request_id;
    const third = (await t.callNow('POST', '/api/v1/requests', submitBody({ question: 'Invoice currency?', target_experts: ['lee'] }))).body.request_id;
    await t.service.messages.idle();

    // The second waits for its draft (its turn comes at once); the third would wait behind it past the timeout.
    expect((await t.callNow('GET', `/api/v1/requests/${second}`)).body).toMatchObject({ status: 'queued', asked_question: null });
    expect((await t.callNow('GET', `/api/v1/requests/${third}`)).body).toMatchObject({ status: 'asked', asked_question: 'Invoice currency?' });
    expect(t.messages().map((m) => /Question: (.*)/.exec(m)![1])).toEqual(['From memory: grace period?', 'Invoice currency?']);
    const trail = (await t.callNow('GET', `/api/v1/audit?request_id=${third}`)).body as Array<{ type: string; data: unknown }>;
    expect(trail.map((e) => e.type)).toEqual(['received', 'llm_fallback', 'routed', 'asked']);
    expect(trail[1]!.data).toEqual({
      stage: 'draft',
      model: 'fake-model-1',
      error: 'not drafted: about 1 LLM call waits ahead of it and one takes about 20.0 s, so no draft could be ready within llm.timeout (PT30S)',
    });
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/^expertq_llm_errors_total\{stage="draft",reason="behind"\} 1$/m);

    // Once the backlog is worked off, new requests are drafted again.
    hang.release({ json: { question: 'From memory: refund limit?' } });
    await t.service.idle();
    await t.service.tick();
    llm.fake.on('drafted_question', { json: { question: 'From memory: currency?' } });
    const fourth = (await t.callNow('POST', '/api/v1/requests', submitBody({ question: 'Currency?', target_experts: ['dana'] }))).body.request_id;
    await t.service.idle();
    expect(await kit.request(fourth)).toMatchObject({ status: 'asked', asked_question: 'From memory: currency?' });
    expect(llm.fake.callsOf('drafted_question').map((c) => c.data.question)).toEqual(['Grace period?', 'Refund limit?', 'Currency?']);
  });
});
